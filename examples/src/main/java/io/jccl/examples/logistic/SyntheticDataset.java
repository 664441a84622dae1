package io.jccl.examples.logistic;

import java.io.Serializable;
import java.util.SplittableRandom;

/**
 * A synthetic binary classification problem that a logistic model fits well, generated example by example from a
 * seed: example {@code i}'s features are standard normal, and its label is 1 with probability
 * {@code sigmoid(w* · x + b*)} for hidden true weights {@code w*} and intercept {@code b*}.
 *
 * <p>Every example depends only on {@code (seed, i)}, never on which process generates it or in what order, so a
 * rank, a Spark task or a single process that generate the same indices hold exactly the same data. That is what
 * lets a distributed run be compared with a single-process one.
 *
 * <p>The true weights are scaled so that the true logit has a standard deviation of {@value #LOGIT_STD}: labels
 * are then noisy enough that no model is perfect (the Bayes accuracy is about 0.89) and easy enough that a good
 * model is far from chance.
 */
public final class SyntheticDataset implements Serializable {
    private static final long serialVersionUID = 1L;
    /** The standard deviation of the true logit {@code w* · x + b*}. */
    public static final double LOGIT_STD = 4.0;
    /** Decorrelates the per-example streams from the seed (the golden ratio in 64 bits, as SplittableRandom uses). */
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private final long seed;
    private final int features;
    private final double[] trueWeights;
    private final double trueIntercept;

    /**
     * @param seed     decides the true weights and every example
     * @param features the number of features, at least 1
     * @throws IllegalArgumentException when {@code features} is below 1
     */
    public SyntheticDataset(long seed, int features) {
        if (features < 1) {
            throw new IllegalArgumentException("features must be at least 1, got " + features);
        }
        this.seed = seed;
        this.features = features;
        SplittableRandom r = new SplittableRandom(seed);
        trueWeights = new double[features];
        // Logit variance = sum of w_j^2 (x standard normal) + intercept^2; split LOGIT_STD^2 as 15/16 : 1/16.
        double weightStd = LOGIT_STD * Math.sqrt(15.0 / 16.0 / features);
        for (int j = 0; j < features; j++) {
            trueWeights[j] = weightStd * r.nextGaussian();
        }
        trueIntercept = LOGIT_STD / 4.0 * r.nextGaussian();
    }

    /** @return the seed */
    public long seed() {
        return seed;
    }

    /** @return the number of features */
    public int features() {
        return features;
    }

    /** @return a copy of the hidden true weights (without the intercept) */
    public double[] trueWeights() {
        return trueWeights.clone();
    }

    /** @return the hidden true intercept */
    public double trueIntercept() {
        return trueIntercept;
    }

    /**
     * Writes example {@code index}'s features into {@code into[offset .. offset + features)}.
     *
     * @param index  the example, 0 or more
     * @param into   where the features go
     * @param offset where in {@code into}
     * @return the example's label, 0 or 1
     * @throws IllegalArgumentException when {@code index} is negative
     * @throws IndexOutOfBoundsException when {@code into} is too short
     */
    public int example(long index, double[] into, int offset) {
        if (index < 0) {
            throw new IllegalArgumentException("example index must not be negative, got " + index);
        }
        java.util.Objects.checkFromIndexSize(offset, features, into.length);
        // One stream per example: the same bits whoever generates it, in any order.
        SplittableRandom r = new SplittableRandom(seed ^ (index + 1) * GOLDEN_GAMMA);
        double logit = trueIntercept;
        for (int j = 0; j < features; j++) {
            double x = r.nextGaussian();
            into[offset + j] = x;
            logit += trueWeights[j] * x;
        }
        return r.nextDouble() < LogisticLoss.sigmoid(logit) ? 1 : 0;
    }

    /**
     * Generates examples {@code first, first + stride, first + 2 * stride, ...} below {@code end}: the shard that
     * rank {@code first} of {@code stride} ranks owns when examples are dealt out round-robin, or a contiguous block
     * with {@code stride} 1.
     *
     * @param first  the first example index, 0 or more
     * @param end    one past the last index considered
     * @param stride the step between owned indices, at least 1
     * @return the shard
     * @throws IllegalArgumentException for a negative {@code first}, {@code end} below {@code first} or a
     *                                  {@code stride} below 1, or a shard of more than {@link Integer#MAX_VALUE}
     *                                  values
     */
    public Shard shard(long first, long end, int stride) {
        if (first < 0 || end < first || stride < 1) {
            throw new IllegalArgumentException("bad shard: first " + first + ", end " + end + ", stride " + stride);
        }
        long rows = (end - first + stride - 1) / stride;
        if (rows * features > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a shard of " + rows + " examples x " + features
                    + " features does not fit in one array; use more ranks or fewer examples");
        }
        double[] x = new double[(int) rows * features];
        double[] y = new double[(int) rows];
        for (int row = 0; row < rows; row++) {
            y[row] = example(first + (long) row * stride, x, row * features);
        }
        return new Shard(features, x, y);
    }
}
