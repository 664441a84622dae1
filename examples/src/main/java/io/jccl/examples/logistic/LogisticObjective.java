package io.jccl.examples.logistic;

import io.jccl.examples.support.SumAllReduce;

import java.util.Objects;

/**
 * L2-regularised logistic regression over data split across ranks, as {@link Lbfgs} needs it: each evaluation sums
 * the loss and gradient over this rank's shard and all-reduces them with the other ranks' in one buffer of
 * {@code features + 3} doubles (gradient sums, loss sum, example count), so every rank gets the value and gradient
 * of the objective over all the data:
 *
 * <pre>
 *   f(w, b) = (1/n) sum_i log(1 + e^(z_i)) - y_i z_i  +  (l2 / 2) |w|^2,     z_i = w . x_i + b
 * </pre>
 *
 * the objective of MLlib's {@code LogisticRegression} with {@code regParam = l2}, {@code elasticNetParam = 0} and
 * {@code standardization = false} (the intercept is not regularised).
 */
public final class LogisticObjective implements Lbfgs.Objective {
    private final Shard shard;
    private final SumAllReduce sum;
    private final double l2;
    private final Runnable beforeEachEvaluation;
    private final double[] buffer;
    private long evaluations;

    /**
     * @param shard                this rank's examples
     * @param sum                  the ranks to sum over
     * @param l2                   regularisation strength of the weights, 0 or more
     * @param beforeEachEvaluation called before every evaluation, on every rank, e.g. to stop a cancelled task
     *                             (it may throw)
     * @throws IllegalArgumentException for a negative or non-finite {@code l2}
     */
    public LogisticObjective(Shard shard, SumAllReduce sum, double l2, Runnable beforeEachEvaluation) {
        if (!(l2 >= 0) || Double.isInfinite(l2)) {
            throw new IllegalArgumentException("l2 must be a finite number >= 0, got " + l2);
        }
        this.shard = Objects.requireNonNull(shard, "shard");
        this.sum = Objects.requireNonNull(sum, "sum");
        this.l2 = l2;
        this.beforeEachEvaluation = Objects.requireNonNull(beforeEachEvaluation, "beforeEachEvaluation");
        this.buffer = new double[shard.features() + 3];
    }

    @Override
    public double valueAndGradient(double[] model, double[] gradient) {
        beforeEachEvaluation.run();
        evaluations++;
        int d = shard.features();
        java.util.Arrays.fill(gradient, 0);
        double loss = LogisticLoss.accumulateAll(shard, model, gradient);
        System.arraycopy(gradient, 0, buffer, 0, d + 1);
        buffer[d + 1] = loss;
        buffer[d + 2] = shard.rows();
        sum.sumInPlace(buffer, buffer.length);
        double n = buffer[d + 2];
        if (n == 0) {
            throw new IllegalStateException("no rank holds any example");
        }
        double penalty = 0;
        for (int j = 0; j < d; j++) {
            gradient[j] = buffer[j] / n + l2 * model[j];
            penalty += model[j] * model[j];
        }
        gradient[d] = buffer[d] / n;
        return buffer[d + 1] / n + 0.5 * l2 * penalty;
    }

    /** @return evaluations so far (each one all-reduce) */
    public long evaluations() {
        return evaluations;
    }
}
