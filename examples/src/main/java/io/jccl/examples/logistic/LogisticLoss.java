package io.jccl.examples.logistic;

/**
 * The logistic loss of a linear model with an intercept, and its gradient, summed over examples of a {@link Shard}.
 *
 * <p>A model is {@code features + 1} values: the weights, then the intercept. Sums (not means) are returned so that
 * ranks can add their shards' sums with an all-reduce and divide once by the global count: the result is then the
 * same as one process computing the mean over all the data, up to the order of the additions.
 */
public final class LogisticLoss {
    private LogisticLoss() {
    }

    /** @return {@code 1 / (1 + e^-z)}, without overflow for any {@code z} */
    public static double sigmoid(double z) {
        if (z >= 0) {
            return 1.0 / (1.0 + Math.exp(-z));
        }
        double e = Math.exp(z);
        return e / (1.0 + e);
    }

    /**
     * The negative log-likelihood of label {@code y} under logit {@code z}: {@code log(1 + e^z) - y z}, computed
     * without overflow or cancellation for large {@code |z|}.
     *
     * @param z the logit
     * @param y the label, 0 or 1
     * @return the loss, at least 0
     */
    public static double loss(double z, double y) {
        double softplus = Math.max(z, 0) + Math.log1p(Math.exp(-Math.abs(z)));
        return softplus - y * z;
    }

    /**
     * @param model  weights then intercept ({@code features + 1} values)
     * @param x      feature values
     * @param offset where the example's features start in {@code x}
     * @param features the number of features
     * @return the logit {@code w · x + b}
     */
    public static double logit(double[] model, double[] x, int offset, int features) {
        double z = model[features];
        for (int j = 0; j < features; j++) {
            z += model[j] * x[offset + j];
        }
        return z;
    }

    /**
     * Adds example {@code row}'s loss gradient to {@code gradient} and returns its loss.
     *
     * @param shard    the examples
     * @param row      which one
     * @param model    weights then intercept
     * @param gradient {@code features + 1} sums to add to
     * @return the example's loss
     */
    public static double accumulate(Shard shard, int row, double[] model, double[] gradient) {
        int d = shard.features();
        int offset = row * d;
        double[] x = shard.x();
        double z = logit(model, x, offset, d);
        double y = shard.y()[row];
        double residual = sigmoid(z) - y;
        for (int j = 0; j < d; j++) {
            gradient[j] += residual * x[offset + j];
        }
        gradient[d] += residual;
        return loss(z, y);
    }

    /**
     * Adds every example's loss gradient to {@code gradient} and returns the summed loss.
     *
     * @param shard    the examples
     * @param model    weights then intercept
     * @param gradient {@code features + 1} sums to add to
     * @return the summed loss
     * @throws IllegalArgumentException when the model or gradient length does not match the shard
     */
    public static double accumulateAll(Shard shard, double[] model, double[] gradient) {
        checkModel(shard, model, "model");
        checkModel(shard, gradient, "gradient");
        double loss = 0;
        for (int row = 0; row < shard.rows(); row++) {
            loss += accumulate(shard, row, model, gradient);
        }
        return loss;
    }

    /**
     * @param shard the examples
     * @param model weights then intercept
     * @return {summed loss, number of examples classified right (logit above 0 for label 1)}
     * @throws IllegalArgumentException when the model length does not match the shard
     */
    public static double[] evaluate(Shard shard, double[] model) {
        checkModel(shard, model, "model");
        int d = shard.features();
        double loss = 0;
        long correct = 0;
        for (int row = 0; row < shard.rows(); row++) {
            double z = logit(model, shard.x(), row * d, d);
            double y = shard.y()[row];
            loss += loss(z, y);
            if ((z > 0) == (y > 0.5)) {
                correct++;
            }
        }
        return new double[] {loss, correct};
    }

    private static void checkModel(Shard shard, double[] model, String what) {
        if (model.length != shard.features() + 1) {
            throw new IllegalArgumentException(what + " has " + model.length + " values; " + shard.features()
                    + " features need " + (shard.features() + 1) + " (weights and intercept)");
        }
    }
}
