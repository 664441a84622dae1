package io.jccl.examples.logistic;

import java.util.Objects;

/**
 * The examples one rank holds: dense row-major features and 0/1 labels.
 *
 * @param features the number of features per example
 * @param x        {@code rows * features} feature values, row-major
 * @param y        {@code rows} labels, each 0 or 1
 */
public record Shard(int features, double[] x, double[] y) {
    /**
     * @throws IllegalArgumentException when the arrays do not agree with {@code features}
     */
    public Shard {
        Objects.requireNonNull(x, "x");
        Objects.requireNonNull(y, "y");
        if (features < 1 || x.length != y.length * (long) features) {
            throw new IllegalArgumentException("a shard of " + y.length + " labels and " + features
                    + " features needs " + y.length * (long) features + " feature values, got " + x.length);
        }
    }

    /** @return the number of examples */
    public int rows() {
        return y.length;
    }
}
