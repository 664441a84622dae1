package io.jccl.examples.djl;

import io.jccl.Communicator;
import io.jccl.cli.metrics.MetricsEndpoint;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * Trains an MLP data-parallel across the ranks of a job started by {@code jccl run} (or any launcher
 * {@link Communicator#fromEnvironment()} knows), with DJL's PyTorch engine and {@link JcclGradientSync}:
 *
 * <pre>
 * examples-djl/run-mlp.sh -np 2                       # builds, then: jccl run -np 2 -cp ... -- this class
 * examples-djl/run-mlp.sh -np 1 -- --epochs 3         # the single-process baseline, the same code
 * </pre>
 *
 * <p>Every rank prints its parameter checksum before and after the broadcast from rank 0; rank 0 prints the loss
 * of each epoch on the global batches and the time per step. One rank is single-process training: the same
 * seed and global batch give the same loss curve on any number of ranks, up to the order of float additions.
 */
@Command(name = "DjlDataParallelMlp", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Data-parallel DJL training of an MLP on a synthetic task, gradients averaged with JCCL.")
public final class DjlDataParallelMlp implements Callable<Integer> {
    @Option(names = "--epochs", defaultValue = "5", description = "passes over the data (default ${DEFAULT-VALUE})")
    int epochs;

    @Option(names = "--samples", defaultValue = "16384", description = "samples in the synthetic data set "
            + "(default ${DEFAULT-VALUE})")
    int samples;

    @Option(names = "--features", defaultValue = "32", description = "input width (default ${DEFAULT-VALUE})")
    int features;

    @Option(names = "--classes", defaultValue = "4", description = "number of classes (default ${DEFAULT-VALUE})")
    int classes;

    @Option(names = "--hidden", defaultValue = "256", description = "width of each hidden layer "
            + "(default ${DEFAULT-VALUE})")
    int hidden;

    @Option(names = "--layers", defaultValue = "2", description = "hidden layers (default ${DEFAULT-VALUE})")
    int layers;

    @Option(names = "--global-batch", defaultValue = "256", description = "samples per step over all ranks, a "
            + "multiple of the number of ranks (default ${DEFAULT-VALUE})")
    int globalBatch;

    @Option(names = "--lr", defaultValue = "0.1", description = "SGD learning rate (default ${DEFAULT-VALUE})")
    float learningRate;

    @Option(names = "--seed", defaultValue = "42", description = "seed of data, order and initialization "
            + "(default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--sync", defaultValue = "flat", converter = StrategyConverter.class,
            description = "how gradients go through JCCL: flat (one all-reduce over a copy of all of them) or "
                    + "in-place (one all-reduce per gradient, no copy) (default flat)")
    JcclGradientSync.Strategy strategy;

    @Option(names = "--torch-threads", defaultValue = "1", description = "PyTorch intra-op threads per rank "
            + "(default ${DEFAULT-VALUE}: deterministic sums, and ranks do not compete for cores)")
    int torchThreads;

    @Option(names = "--metrics-port", defaultValue = "-1", paramLabel = "P", description = "serve Prometheus "
            + "metrics (docs/metrics.md) on 127.0.0.1 while training: rank r on port P + r (0: any free port, "
            + "printed)")
    int metricsPort;

    @Option(names = "--loss-file", description = "rank 0 writes every step's loss there, one per line")
    Path lossFile;

    /**
     * Runs the example.
     *
     * @param args the options; {@code --help} lists them
     */
    public static void main(String[] args) {
        CommandLine commandLine = new CommandLine(new DjlDataParallelMlp());
        // A setting that does not fit (a global batch that does not split over the ranks, say) is a usage error.
        commandLine.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof IllegalArgumentException) {
                cmd.getErr().println("DjlDataParallelMlp: " + e.getMessage());
                return 2;
            }
            throw e;
        });
        System.exit(commandLine.execute(args));
    }

    @Override
    public Integer call() {
        if (torchThreads < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--torch-threads must be at least 1, "
                    + "got " + torchThreads);
        }
        // Read by DJL's PyTorch engine once, when it starts; so before anything touches DJL.
        System.setProperty("ai.djl.pytorch.num_threads", Integer.toString(torchThreads));
        System.setProperty("ai.djl.pytorch.num_interop_threads", "1");
        MlpTraining.Settings settings = new MlpTraining.Settings(epochs, samples, features, classes, hidden, layers,
                globalBatch, learningRate, seed, strategy);
        try (Communicator comm = Communicator.fromEnvironment();
             MetricsEndpoint endpoint = metricsPort < 0 ? null
                     : MetricsEndpoint.startForRank(metricsPort, comm.rank())) {
            run(comm, settings, endpoint, System.out);
        }
        return 0;
    }

    private void run(Communicator comm, MlpTraining.Settings settings, MetricsEndpoint endpoint, PrintStream out) {
        int rank = comm.rank();
        int ranks = comm.size();
        int shard = settings.shardBatch(ranks);
        if (rank == 0) {
            out.printf(Locale.ROOT, "DJL data-parallel MLP: %d rank%s, MLP %s, global batch %d = %d x %d, "
                            + "%d steps per epoch, SGD lr %s, gradients averaged %s, %d torch thread%s per rank%n",
                    ranks, ranks == 1 ? "" : "s", shape(settings), settings.globalBatch(), ranks, shard,
                    settings.stepsPerEpoch(), settings.learningRate(), strategyName(settings.strategy()),
                    torchThreads, torchThreads == 1 ? "" : "s");
        }
        if (endpoint != null) {
            out.printf(Locale.ROOT, "metrics: http://127.0.0.1:%d/metrics%n", endpoint.port());
        }
        MlpTraining.Report report = MlpTraining.train(comm, settings,
                (epoch, meanLoss, stepNanos, syncNanos, stepsDone) -> {
                    if (rank == 0) {
                        int from = stepsDone - settings.stepsPerEpoch();
                        out.printf(Locale.ROOT, "epoch %d/%d  loss %.6f  step %.2f ms (median; averaging "
                                        + "gradients %.2f ms)%n", epoch, settings.epochs(), meanLoss,
                                medianMs(stepNanos, from, stepsDone), medianMs(syncNanos, from, stepsDone));
                    }
                }, endpoint == null ? null : endpoint.registry());
        out.printf(Locale.ROOT, "parameters crc32c: initialized %08x, after broadcast from rank 0 %08x, "
                + "after training %08x%n", report.checksumBeforeBroadcast(), report.checksumAfterBroadcast(),
                report.checksumFinal());
        if (rank == 0) {
            int steps = report.stepNanos().length;
            // The first steps warm up the JIT and PyTorch's allocator; leave out the first tenth (at most 20).
            int warmup = Math.min(20, steps / 10);
            double stepMs = medianMs(report.stepNanos(), warmup, steps);
            out.printf(Locale.ROOT, "final loss %.6f after %d steps; %,d parameters, %,d B of gradient per rank "
                            + "per step%n", report.finalLoss(), steps, report.parameterCount(),
                    report.gradientBytes());
            out.printf(Locale.ROOT, "step time (steps %d-%d): median %.2f ms, p10 %.2f, p90 %.2f; averaging "
                            + "gradients median %.2f ms; %,.0f samples/s%n", warmup + 1, steps, stepMs,
                    percentileMs(report.stepNanos(), warmup, steps, 0.10),
                    percentileMs(report.stepNanos(), warmup, steps, 0.90),
                    medianMs(report.syncNanos(), warmup, steps), settings.globalBatch() / (stepMs / 1e3));
            if (lossFile != null) {
                writeLosses(lossFile, report.stepLosses());
            }
        }
    }

    private static String shape(MlpTraining.Settings settings) {
        StringBuilder shape = new StringBuilder().append(settings.features());
        for (int i = 0; i < settings.hiddenLayers(); i++) {
            shape.append('-').append(settings.hidden());
        }
        return shape.append('-').append(settings.classes()).toString();
    }

    private static String strategyName(JcclGradientSync.Strategy strategy) {
        return strategy.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static void writeLosses(Path file, float[] losses) {
        // Float.toString: the shortest decimal that reads back as the same float.
        String text = Arrays.stream(boxed(losses)).map(String::valueOf).collect(Collectors.joining("\n", "", "\n"));
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the losses to " + file + ": " + e.getMessage(), e);
        }
    }

    private static Float[] boxed(float[] values) {
        Float[] boxed = new Float[values.length];
        for (int i = 0; i < values.length; i++) {
            boxed[i] = values[i];
        }
        return boxed;
    }

    static double medianMs(long[] nanos, int from, int to) {
        return percentileMs(nanos, from, to, 0.5);
    }

    /** @return the {@code fraction} quantile (nearest rank) of {@code nanos[from, to)}, in milliseconds */
    static double percentileMs(long[] nanos, int from, int to, double fraction) {
        long[] sorted = Arrays.copyOfRange(nanos, from, to);
        if (sorted.length == 0) {
            return Double.NaN;
        }
        Arrays.sort(sorted);
        int index = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
        return sorted[index] / 1e6;
    }

    /** Reads {@code flat} and {@code in-place}, in any case. */
    static final class StrategyConverter implements CommandLine.ITypeConverter<JcclGradientSync.Strategy> {
        @Override
        public JcclGradientSync.Strategy convert(String value) {
            String name = value.trim().toUpperCase(Locale.ROOT).replace('-', '_');
            for (JcclGradientSync.Strategy strategy : JcclGradientSync.Strategy.values()) {
                if (strategy.name().equals(name)) {
                    return strategy;
                }
            }
            throw new CommandLine.TypeConversionException("'" + value + "' is not flat or in-place");
        }
    }
}
