package io.jccl.cli;

import io.jccl.Algorithm;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code jccl selftest}: every collective on N ranks in this JVM, exact verification, time and bus bandwidth. */
@Command(name = "selftest", mixinStandardHelpOptions = true,
        description = {"Run every collective on N ranks in this JVM (threads), verify every element exactly and",
                "print time and bus bandwidth per collective, like nccl-tests. Exits 1 on any wrong element."})
public final class SelftestCommand implements Callable<Integer> {
    /** Created by picocli. */
    public SelftestCommand() {
    }

    @Option(names = {"-np", "--ranks"}, defaultValue = "4", description = "number of ranks (default ${DEFAULT-VALUE})")
    int ranks;

    @Option(names = {"-b", "--bytes"}, defaultValue = "1M", converter = BytesConverter.class,
            description = "size of the largest buffer per collective, e.g. 4096, 512K, 64M (default ${DEFAULT-VALUE})")
    long bytes;

    @Option(names = {"-d", "--type"}, defaultValue = "float32", converter = TypeConverter.class,
            description = "element type (default ${DEFAULT-VALUE})")
    DataType type;

    @Option(names = {"-o", "--op"}, defaultValue = "sum", converter = OpConverter.class,
            description = "reduction: sum prod min max avg premulsum (default ${DEFAULT-VALUE})")
    ReduceOp.Kind op;

    @Option(names = {"-n", "--iters"}, defaultValue = "20", description = "timed iterations (default ${DEFAULT-VALUE})")
    int iterations;

    @Option(names = {"-w", "--warmup"}, defaultValue = "5", description = "warm-up iterations (default ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = "--transport", description = "transport between the ranks: local or tcp (loopback) "
            + "(default: JCCL_NET, else local)")
    String transport;

    @Option(names = "--algo", converter = AlgoConverter.class,
            description = "all-reduce algorithm: auto ring tree rd (default: JCCL_ALGO, else auto)")
    Algorithm algorithm;

    @Override
    public Integer call() {
        if (ranks < 1 || ranks > 256) {
            throw new IllegalArgumentException("-np must be between 1 and 256, got " + ranks);
        }
        if (bytes < 0) {
            throw new IllegalArgumentException("--bytes must not be negative");
        }
        if (iterations < 1 || warmup < 0) {
            throw new IllegalArgumentException("--iters must be >= 1 and --warmup >= 0");
        }
        PrintStream out = System.out;
        List<Communicator> comms = Communicator.local(ranks, config());
        try {
            out.printf(Locale.ROOT, "# JCCL %s selftest: %d ranks in this JVM over %s, %s %s, %d bytes, "
                            + "%d timed iterations after %d warm-up%n", VersionCommand.version(), ranks,
                    comms.getFirst().config().transport() == null ? "the in-JVM transport"
                            : comms.getFirst().config().transport(), type.name().toLowerCase(Locale.ROOT),
                    op.name().toLowerCase(Locale.ROOT), bytes, iterations, warmup);
            out.println("#");
            out.printf(Locale.ROOT, "# %-13s %12s %12s %9s %6s %12s %11s %11s %8s%n", "collective", "size(B)",
                    "count", "type", "redop", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong");
            SelfTest test = new SelfTest(comms, type, op, warmup, iterations);
            long totalWrong = 0;
            int failed = 0;
            for (SelfTest.Collective c : SelfTest.Collective.values()) {
                SelfTest.Result r = test.run(c, bytes);
                if (r.error() != null) {
                    failed++;
                    out.printf(Locale.ROOT, "  %-13s FAILED: %s%n", c.label, r.error());
                    continue;
                }
                totalWrong += r.wrong();
                out.printf(Locale.ROOT, "  %-13s %12d %12d %9s %6s %12.1f %11.3f %11.3f %8d%n", c.label,
                        r.sizeBytes(), r.count(), c == SelfTest.Collective.BARRIER ? "-"
                                : type.name().toLowerCase(Locale.ROOT),
                        c.reducing ? op.name().toLowerCase(Locale.ROOT) : "-", r.seconds() * 1e6, r.algBw(),
                        r.busBw(), r.wrong());
            }
            out.println("#");
            if (totalWrong == 0 && failed == 0) {
                out.println("# All results exact.");
                return 0;
            }
            out.printf(Locale.ROOT, "# FAILED: %d wrong elements, %d collectives failed.%n", totalWrong, failed);
            return 1;
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    /** @return the communicators' settings: what the options say; the environment's for what they leave out */
    CommConfig config() {
        CommConfig.Builder config = CommConfig.builder();
        // Only what was given: a default here would hide JCCL_ALGO / JCCL_NET, which CommConfig reads otherwise.
        if (algorithm != null) {
            config.algorithm(algorithm);
        }
        if (transport != null) {
            config.transport(transport);
        }
        return config.build();
    }

    /** Parses sizes like 4096, 512K, 64M. */
    public static final class BytesConverter implements ITypeConverter<Long> {
        /** Created by picocli. */
        public BytesConverter() {
        }

        @Override
        public Long convert(String value) {
            return CommConfig.parseBytes(value);
        }
    }

    /** Parses type names. */
    public static final class TypeConverter implements ITypeConverter<DataType> {
        /** Created by picocli. */
        public TypeConverter() {
        }

        @Override
        public DataType convert(String value) {
            return DataType.parse(value);
        }
    }

    /** Parses reduction names. */
    public static final class OpConverter implements ITypeConverter<ReduceOp.Kind> {
        /** Created by picocli. */
        public OpConverter() {
        }

        @Override
        public ReduceOp.Kind convert(String value) {
            return ReduceOp.parse(value).kind();
        }
    }

    /** Parses algorithm names. */
    public static final class AlgoConverter implements ITypeConverter<Algorithm> {
        /** Created by picocli. */
        public AlgoConverter() {
        }

        @Override
        public Algorithm convert(String value) {
            return Algorithm.parse(value);
        }
    }
}
