package io.jccl.examples.sgd;

import io.jccl.Communicator;
import io.jccl.JcclException;
import io.jccl.env.LaunchEnvironment;
import io.jccl.examples.logistic.LogisticLoss;
import io.jccl.examples.logistic.Shard;
import io.jccl.examples.logistic.SyntheticDataset;
import io.jccl.examples.support.ExampleArgs;
import io.jccl.examples.support.ExampleMetrics;
import io.jccl.examples.support.SumAllReduce;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Data-parallel mini-batch SGD on a logistic regression model: each rank owns a shard of a synthetic dataset,
 * computes the loss gradient on its part of every mini-batch, all-reduces it with JCCL, and takes the same step as
 * every other rank. Rank 0 prints the loss and accuracy over the whole dataset after every epoch.
 *
 * <pre>
 * ./jccl run -np 4 -- io.jccl.examples.sgd.DataParallelSgd --epochs 10
 * </pre>
 *
 * <h2>Why the result does not depend on the number of ranks</h2>
 * Example {@code i} is owned by rank {@code i mod size} and generated from {@code (seed, i)} alone
 * ({@link SyntheticDataset}). Every epoch all ranks draw the same permutation of all example indices from the seed,
 * and mini-batch {@code t} is the same {@code --batch} indices of it whatever the number of ranks: each rank sums the
 * gradient of the examples of the batch it owns, and one all-reduce of (gradient sums, loss sum, example count) gives
 * every rank the batch's gradient sum, which it divides by the batch size. So 1, 2 or 4 ranks run the same
 * arithmetic up to the order in which the per-example gradients are added (in float64), and reach the same model up
 * to rounding; {@code DataParallelSgdTest} checks this against a single process.
 */
public final class DataParallelSgd {
    private static final String NAME = "DataParallelSgd";

    private DataParallelSgd() {
    }

    /**
     * What to train.
     *
     * @param examples       examples in the whole dataset
     * @param features       features per example
     * @param batch          examples per global mini-batch (summed over all ranks)
     * @param epochs         passes over the dataset
     * @param learningRate   SGD step size
     * @param l2             L2 regularisation strength on the weights (not the intercept)
     * @param seed           decides the dataset and the shuffles
     * @param metricsPort    {@link ExampleMetrics#OFF}, 0 (a free port), or the Prometheus port of each host's local
     *                       rank 0 (local rank r serves on this + r)
     * @param metricsLinger  how long to keep serving metrics after training
     * @param weightsOut     where rank 0 writes the final model, one value per line (null: nowhere)
     */
    public record Options(int examples, int features, int batch, int epochs, double learningRate, double l2, long seed,
                          int metricsPort, Duration metricsLinger, Path weightsOut) {
        /**
         * @throws IllegalArgumentException naming the first value out of range
         */
        public Options {
            check(examples >= 1, "--examples must be at least 1, got " + examples);
            check(features >= 1, "--features must be at least 1, got " + features);
            check(batch >= 1, "--batch must be at least 1, got " + batch);
            check(epochs >= 0, "--epochs must not be negative, got " + epochs);
            check(learningRate > 0 && Double.isFinite(learningRate), "--lr must be positive, got " + learningRate);
            check(l2 >= 0 && Double.isFinite(l2), "--l2 must not be negative, got " + l2);
            check(metricsPort >= ExampleMetrics.OFF && metricsPort <= 65535, "--metrics-port must be a port, got "
                    + metricsPort);
            check(metricsLinger != null && !metricsLinger.isNegative(), "--metrics-linger must not be negative");
        }

        /**
         * The defaults: 65,536 examples x 32 features, batch 1024, 10 epochs, step 0.1, L2 1e-4, seed 42 (the loss
         * then falls every epoch, from 0.693 to about 0.318, and the accuracy settles near 0.86).
         */
        public static Options defaults() {
            return new Options(65_536, 32, 1024, 10, 0.1, 1e-4, 42, ExampleMetrics.OFF, Duration.ZERO, null);
        }

        /**
         * @param argv the program's options (see {@link #usage()})
         * @return the options
         * @throws IllegalArgumentException naming the option that is wrong
         */
        public static Options parse(String... argv) {
            ExampleArgs args = ExampleArgs.parse(argv);
            Options d = defaults();
            Options o = new Options(
                    args.intValue("--examples", d.examples, 1, Integer.MAX_VALUE - 8),
                    args.intValue("--features", d.features, 1, 1 << 20),
                    args.intValue("--batch", d.batch, 1, Integer.MAX_VALUE),
                    args.intValue("--epochs", d.epochs, 0, 1_000_000),
                    args.doubleValue("--lr", d.learningRate, Double.MIN_VALUE, 1e6),
                    args.doubleValue("--l2", d.l2, 0, 1e6),
                    args.longValue("--seed", d.seed, Long.MIN_VALUE, Long.MAX_VALUE),
                    args.intValue("--metrics-port", d.metricsPort, ExampleMetrics.OFF, 65535),
                    Duration.ofSeconds(args.longValue("--metrics-linger", 0, 0, 86_400)),
                    args.pathValue("--weights-out"));
            args.finish();
            return o;
        }

        /** @return the options, one per line */
        public static String usage() {
            return """
                    usage: jccl run -np N -- io.jccl.examples.sgd.DataParallelSgd [options]
                      --examples N          examples in the whole dataset (65536)
                      --features N          features per example (32)
                      --batch N             global mini-batch, summed over the ranks (1024)
                      --epochs N            passes over the data (10)
                      --lr X                SGD step size (0.1)
                      --l2 X                L2 regularisation of the weights (1e-4)
                      --seed N              dataset and shuffles (42)
                      --metrics-port P      serve Prometheus metrics on 127.0.0.1:P+local rank (0: any free port)
                      --metrics-linger S    keep serving them S seconds after training (0)
                      --weights-out FILE    rank 0 writes the final model there, one value per line
                    """;
        }

        private static void check(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }

    /**
     * The state after an epoch, over the whole dataset.
     *
     * @param epoch           0 before training, then 1, 2, ...
     * @param loss            mean log-loss (without the L2 term)
     * @param accuracy        fraction of examples classified right
     * @param steps           mini-batches in the epoch
     * @param stepMillis      mean wall time of a step (gradient and all-reduce), in milliseconds
     * @param allReduceMillis mean time of a step's all-reduce, in milliseconds
     */
    public record EpochStats(int epoch, double loss, double accuracy, long steps, double stepMillis,
                             double allReduceMillis) {
        /** @return one line for the log, e.g. {@code epoch  3/10  loss 0.3127  accuracy 0.8612  ...} */
        public String format(int epochs) {
            String head = String.format(Locale.ROOT, "epoch %2d/%d  loss %.4f  accuracy %.4f", epoch, epochs, loss,
                    accuracy);
            return steps == 0 ? head : head + String.format(Locale.ROOT,
                    "  (%d steps, %.3f ms/step, all-reduce %.3f ms/step)", steps, stepMillis, allReduceMillis);
        }
    }

    /**
     * The outcome.
     *
     * @param model  the final weights, then the intercept (the same on every rank)
     * @param epochs the state before training and after each epoch
     */
    public record Result(double[] model, List<EpochStats> epochs) {
    }

    /**
     * Trains on this rank's shard, summing gradients over {@code comm}'s ranks.
     *
     * @param options what to train
     * @param comm    the ranks, or null to train in this process alone (the reference for a distributed run)
     * @param onEpoch called with the state before training and after every epoch, on every rank
     * @return the final model and the per-epoch state
     * @throws JcclException when an all-reduce fails
     */
    public static Result train(Options options, Communicator comm, Consumer<EpochStats> onEpoch) {
        SumAllReduce sum = SumAllReduce.over(comm);
        int rank = sum.rank();
        int size = sum.size();
        int d = options.features();
        int n = options.examples();
        SyntheticDataset data = new SyntheticDataset(options.seed(), d);
        // Round-robin ownership: rank r holds examples r, r + size, ...; example i is row i / size of its shard.
        Shard shard = data.shard(rank, n, size);
        double[] model = new double[d + 1];
        // One buffer per step: gradient sums (d + 1), loss sum, example count, all-reduced together.
        double[] step = new double[d + 3];
        double[] eval = new double[3];
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        List<EpochStats> history = new ArrayList<>();
        history.add(evaluate(shard, model, sum, eval, 0, 0, 0, 0));
        onEpoch.accept(history.getLast());
        for (int epoch = 1; epoch <= options.epochs(); epoch++) {
            shuffle(order, new SplittableRandom(options.seed() * 1_000_003L + epoch));
            long epochStart = System.nanoTime();
            long reduceBefore = sum.nanosSpent();
            long steps = 0;
            for (int start = 0; start < n; start += options.batch()) {
                int end = (int) Math.min(n, (long) start + options.batch());
                java.util.Arrays.fill(step, 0);
                double loss = 0;
                int mine = 0;
                for (int k = start; k < end; k++) {
                    int i = order[k];
                    if (i % size == rank) {
                        loss += LogisticLoss.accumulate(shard, i / size, model, step);
                        mine++;
                    }
                }
                step[d + 1] = loss;
                step[d + 2] = mine;
                sum.sumInPlace(step, step.length);
                double count = step[d + 2];
                for (int j = 0; j < d; j++) {
                    model[j] -= options.learningRate() * (step[j] / count + options.l2() * model[j]);
                }
                model[d] -= options.learningRate() * step[d] / count;
                steps++;
            }
            long epochNanos = System.nanoTime() - epochStart;
            history.add(evaluate(shard, model, sum, eval, epoch, steps, epochNanos,
                    sum.nanosSpent() - reduceBefore));
            onEpoch.accept(history.getLast());
        }
        return new Result(model, List.copyOf(history));
    }

    /** Loss and accuracy over the whole dataset: each rank's sums over its shard, all-reduced. */
    private static EpochStats evaluate(Shard shard, double[] model, SumAllReduce sum, double[] eval, int epoch,
                                       long steps, long epochNanos, long reduceNanos) {
        double[] local = LogisticLoss.evaluate(shard, model);
        eval[0] = local[0];
        eval[1] = local[1];
        eval[2] = shard.rows();
        sum.sumInPlace(eval, eval.length);
        double perStep = steps == 0 ? 0 : 1e-6 / steps;
        return new EpochStats(epoch, eval[0] / eval[2], eval[1] / eval[2], steps, epochNanos * perStep,
                reduceNanos * perStep);
    }

    /** Fisher-Yates with the given generator: every rank draws the same permutation from the same seed. */
    private static void shuffle(int[] a, SplittableRandom random) {
        for (int i = a.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    /**
     * Writes a model one value per line, in the shortest decimal form that reads back to the same double.
     *
     * @param model the values
     * @param file  where
     */
    public static void writeModel(double[] model, Path file) {
        StringBuilder text = new StringBuilder();
        for (double v : model) {
            text.append(v).append('\n');
        }
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the model to " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads a model written by {@link #writeModel}.
     *
     * @param file where
     * @return the values
     */
    public static double[] readModel(Path file) {
        try {
            return Files.readAllLines(file).stream().filter(l -> !l.isBlank()).mapToDouble(Double::parseDouble)
                    .toArray();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the model from " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Joins the job's communicator ({@link Communicator#fromEnvironment()}, e.g. under {@code jccl run}) and trains.
     * Exit status 2 for a usage error, 1 when training fails.
     *
     * @param args options, see {@link Options#usage()}
     */
    public static void main(String[] args) throws InterruptedException {
        Options options = ExampleArgs.parseOrExit(NAME, args, Options.usage(), Options::parse);
        if (options == null) {
            return;   // --help
        }
        try {
            Communicator comm = Communicator.fromEnvironment();
            // Ports per host, as jccl perf does: P + local rank (the rank itself where the launcher gives none).
            int localRank = LaunchEnvironment.detect().localRank();
            try (ExampleMetrics metrics = ExampleMetrics.start(options.metricsPort(),
                    localRank >= 0 ? localRank : comm.rank())) {
                try (comm) {
                    run(options, comm, metrics);
                }
                // The communicator is closed by now: lingering only serves the final values.
                metrics.linger(options.metricsLinger());
            }
        } catch (JcclException | UncheckedIOException e) {
            // A rank that cannot join, a failed all-reduce, a metrics port in use: say so and fail this rank.
            System.err.println(NAME + ": " + e.getMessage());
            System.exit(1);
        }
    }

    /** Trains on the job's communicator; rank 0 prints the progress and writes the model. */
    private static void run(Options options, Communicator comm, ExampleMetrics metrics) {
        ExampleMetrics.Progress progress = metrics.progress("sgd");
        boolean leader = comm.rank() == 0;
        if (metrics.enabled()) {
            System.out.println("metrics: http://127.0.0.1:" + metrics.port() + "/metrics");
        }
        if (leader) {
            System.out.printf(Locale.ROOT, "%s: %d ranks, %d examples x %d features (about %d per rank), "
                            + "global batch %d, lr %s, l2 %s, %d epochs%n", NAME, comm.size(), options.examples(),
                    options.features(), options.examples() / comm.size(), options.batch(), options.learningRate(),
                    options.l2(), options.epochs());
        }
        long start = System.nanoTime();
        Result result = train(options, comm, stats -> {
            progress.epochDone(stats.loss(), stats.accuracy());
            if (leader) {
                System.out.println(stats.format(options.epochs()));
            }
        });
        if (leader) {
            System.out.printf(Locale.ROOT, "trained in %.2f s%n", (System.nanoTime() - start) / 1e9);
            if (options.weightsOut() != null) {
                writeModel(result.model(), options.weightsOut());
            }
        }
    }
}
