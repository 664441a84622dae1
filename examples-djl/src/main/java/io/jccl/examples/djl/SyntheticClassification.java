package io.jccl.examples.djl;

import java.util.SplittableRandom;

/**
 * A classification task made from a seed alone, so that every rank (and a single process) holds the same data
 * without reading or shipping any: standard normal inputs, each labelled by a fixed random "teacher" network,
 * {@code argmax(tanh(x W1) W2)}. The teacher's hidden layer makes the classes non-linearly separable, so an MLP
 * has something to learn; being a deterministic function of the input, the labels can be learned completely.
 *
 * <p>The same seed gives the same samples and the same per-epoch orders in every JVM of the same JDK
 * ({@link SplittableRandom} and its Gaussian are specified algorithms).
 */
public final class SyntheticClassification {
    /** Width of the teacher's hidden layer. */
    private static final int TEACHER_HIDDEN = 32;

    private final long seed;
    private final int samples;
    private final int features;
    private final int classes;
    private final float[] inputs;
    private final int[] labels;

    private SyntheticClassification(long seed, int samples, int features, int classes, float[] inputs,
                                    int[] labels) {
        this.seed = seed;
        this.samples = samples;
        this.features = features;
        this.classes = classes;
        this.inputs = inputs;
        this.labels = labels;
    }

    /**
     * Generates the task.
     *
     * @param seed     the seed of inputs, teacher and epoch orders
     * @param samples  number of samples, at least 1
     * @param features input width, at least 1
     * @param classes  number of classes, at least 2
     * @return the task
     * @throws IllegalArgumentException for a count out of range, or more than 2<sup>31</sup>-1 input values
     */
    public static SyntheticClassification generate(long seed, int samples, int features, int classes) {
        if (samples < 1 || features < 1 || classes < 2) {
            throw new IllegalArgumentException("need samples >= 1, features >= 1, classes >= 2; got samples "
                    + samples + ", features " + features + ", classes " + classes);
        }
        if ((long) samples * features > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("samples " + samples + " x features " + features
                    + " is more values than one array holds");
        }
        SplittableRandom random = new SplittableRandom(seed);
        float[] w1 = gaussian(random, features * TEACHER_HIDDEN, 1 / Math.sqrt(features));
        float[] w2 = gaussian(random, TEACHER_HIDDEN * classes, 1 / Math.sqrt(TEACHER_HIDDEN));
        float[] inputs = gaussian(random, samples * features, 1);
        int[] labels = new int[samples];
        double[] hidden = new double[TEACHER_HIDDEN];
        for (int s = 0; s < samples; s++) {
            for (int h = 0; h < TEACHER_HIDDEN; h++) {
                double sum = 0;
                for (int f = 0; f < features; f++) {
                    sum += inputs[s * features + f] * w1[f * TEACHER_HIDDEN + h];
                }
                hidden[h] = Math.tanh(sum);
            }
            int best = 0;
            double bestScore = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < classes; c++) {
                double score = 0;
                for (int h = 0; h < TEACHER_HIDDEN; h++) {
                    score += hidden[h] * w2[h * classes + c];
                }
                if (score > bestScore) {
                    bestScore = score;
                    best = c;
                }
            }
            labels[s] = best;
        }
        return new SyntheticClassification(seed, samples, features, classes, inputs, labels);
    }

    private static float[] gaussian(SplittableRandom random, int n, double scale) {
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = (float) (random.nextGaussian() * scale);
        }
        return values;
    }

    /** @return the number of samples */
    public int samples() {
        return samples;
    }

    /** @return the input width */
    public int features() {
        return features;
    }

    /** @return the number of classes */
    public int classes() {
        return classes;
    }

    /**
     * The order in which an epoch visits the samples: a permutation drawn from the seed and the epoch, the same
     * everywhere.
     *
     * @param epoch the epoch, from 0
     * @return the sample indices, in visiting order
     */
    public int[] order(int epoch) {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch " + epoch + " is negative");
        }
        int[] order = new int[samples];
        for (int i = 0; i < samples; i++) {
            order[i] = i;
        }
        // Fisher-Yates with a generator split off for this epoch.
        SplittableRandom random = new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (epoch + 1L)));
        for (int i = samples - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }

    /**
     * Copies the inputs of {@code count} samples, {@code order[from]} to {@code order[from + count - 1]}, row by
     * row into {@code into}.
     *
     * @param order an epoch's order
     * @param from  the first position in {@code order}
     * @param count how many samples
     * @param into  at least {@code count * features()} values
     */
    public void inputs(int[] order, int from, int count, float[] into) {
        checkRange(order, from, count, into.length, features);
        for (int i = 0; i < count; i++) {
            System.arraycopy(inputs, order[from + i] * features, into, i * features, features);
        }
    }

    /**
     * Copies the class indices of the same samples as {@link #inputs} into {@code into}.
     *
     * @param order an epoch's order
     * @param from  the first position in {@code order}
     * @param count how many samples
     * @param into  at least {@code count} values
     */
    public void labels(int[] order, int from, int count, float[] into) {
        checkRange(order, from, count, into.length, 1);
        for (int i = 0; i < count; i++) {
            into[i] = labels[order[from + i]];
        }
    }

    private void checkRange(int[] order, int from, int count, int intoLength, int width) {
        if (order.length != samples || from < 0 || count < 0 || from + count > samples) {
            throw new IllegalArgumentException("samples " + from + " to " + (from + count) + " of an order of "
                    + order.length + " (" + samples + " samples)");
        }
        if (intoLength < count * width) {
            throw new IllegalArgumentException("the target holds " + intoLength + " values; " + count
                    + " samples need " + (count * width));
        }
    }
}
