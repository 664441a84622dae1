package io.jccl.cli.bench;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.UniqueId;
import io.jccl.cli.SelftestCommand;
import io.jccl.cli.VersionCommand;
import io.jccl.cli.progress.TerminalBar;
import io.jccl.net.NetTransportProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code jccl bench collective}: an all-reduce across {@code -np} JVMs on this host, which it starts itself, joined
 * through the rendezvous like separate machines would be; nccl-tests' columns, every element checked.
 */
@Command(name = "collective", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run an all-reduce across -np ranks, each a JVM of its own on this host (started with this",
                "JVM's java, class path and flags, and joined through a rendezvous in this one), for each",
                "size: warm up, time the iterations (the slowest rank's time), check every element of the",
                "result, and print nccl-tests' columns. busbw = algbw * 2(n-1)/n. A rank that fails, or a",
                "run past --timeout, fails the benchmark: the ranks are killed and their output printed.",
                ""})
public final class CollectiveBenchCommand implements Callable<Integer> {
    /** Largest --bytes: one buffer per rank of this size is sent, one received, plus the checker's copies. */
    static final long MAX_BYTES = 8L << 30;
    /** Most ranks: each is a JVM on this host. */
    static final int MAX_RANKS = 64;

    @Spec
    CommandSpec spec;

    /** Created by picocli. */
    public CollectiveBenchCommand() {
    }

    @Option(names = {"-np", "--ranks"}, defaultValue = "2", description = "number of ranks, each a JVM "
            + "(default ${DEFAULT-VALUE})")
    int ranks;

    @Option(names = "--net", description = "transport between every pair of ranks, e.g. tcp (default: automatic, "
            + "or JCCL_NET)")
    String net;

    @Option(names = {"-b", "--bytes"}, split = ",", defaultValue = "1M,8M,64M",
            converter = SelftestCommand.BytesConverter.class,
            description = "buffer sizes, comma-separated, e.g. 64K,1M,64M (default ${DEFAULT-VALUE})")
    List<Long> sizes;

    @Option(names = {"-d", "--type"}, defaultValue = "float32", converter = SelftestCommand.TypeConverter.class,
            description = "element type (default ${DEFAULT-VALUE})")
    DataType type;

    @Option(names = {"-o", "--op"}, defaultValue = "sum", converter = SelftestCommand.OpConverter.class,
            description = "reduction: sum prod min max avg premulsum (default ${DEFAULT-VALUE})")
    ReduceOp.Kind op;

    @Option(names = {"-n", "--iters"}, defaultValue = "20", description = "timed iterations per size "
            + "(default ${DEFAULT-VALUE})")
    int iterations;

    @Option(names = {"-w", "--warmup"}, defaultValue = "5", description = "warm-up iterations per size "
            + "(default ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = "--warmup-ms", defaultValue = "1000", description = "and keep warming up each size until this "
            + "many milliseconds have passed and no rank's JIT has finished a compilation for 200 ms (at most 10 s "
            + "more): the JIT needs thousands of calls (default ${DEFAULT-VALUE})")
    long warmupMs;

    @Option(names = "--timeout", defaultValue = "300", description = "seconds the whole run may take, and each "
            + "rank's join and each all-reduce (default ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Mixin
    ReportOutput output;

    @Option(names = "--metrics-port", defaultValue = "-1", description = "serve Prometheus metrics (docs/metrics.md) "
            + "at http://127.0.0.1:P+rank/metrics while the run lasts; 0: any free port per rank (default: off)")
    int metricsPort;

    /**
     * One size's numbers.
     *
     * @param bytes   buffer size
     * @param count   elements
     * @param seconds the slowest rank's mean time per all-reduce
     * @param wrong   wrong elements over all ranks
     */
    record Row(long bytes, long count, double seconds, long wrong) {
        double algBw() {
            return seconds > 0 ? bytes / seconds / 1e9 : 0;
        }

        double busBw(int n) {
            return algBw() * 2.0 * (n - 1) / n;
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        validate();
        PrintStream out = System.out;
        String typeName = type.name().toLowerCase(Locale.ROOT);
        String opName = op.name().toLowerCase(Locale.ROOT);
        String netName = net == null ? "-" : net.trim().toLowerCase(Locale.ROOT);
        String over = net == null ? "the automatic transport" + (System.getenv("JCCL_NET") != null
                ? " (JCCL_NET=" + System.getenv("JCCL_NET") + ")" : "") : netName;
        if (!output.json()) {
            out.printf(Locale.ROOT, "# JCCL %s bench collective: all-reduce across %d ranks, each a JVM on this host, "
                    + "over %s; %s %s; %d timed iterations after %d warm-up (and at least %d ms of it)%n",
                    VersionCommand.version(), ranks, over, typeName, opName, iterations, warmup, warmupMs);
            out.println("# time: the slowest rank's mean time per call; busbw = algbw * 2(n-1)/n; every element "
                    + "checked");
            out.println("#");
            out.printf(Locale.ROOT, "# %12s %12s %9s %6s %12s %11s %11s %8s%n", "size(B)", "count", "type", "redop",
                    "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong");
            out.flush();
        }
        UniqueId id = UniqueId.create();
        StringBuilder sizeList = new StringBuilder();
        for (long s : sizes) {
            sizeList.append(sizeList.isEmpty() ? "" : ",").append(s);
        }
        List<Row> rows = new ArrayList<>();
        long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        RankProcesses procs;
        try {
            procs = RankProcesses.start(CollectiveBenchRank.class, ranks, r -> List.of(Integer.toString(r),
                    Integer.toString(ranks), typeName, opName, Integer.toString(warmup), Integer.toString(iterations),
                    netName, Long.toString(timeoutSeconds), sizeList.toString(), Long.toString(warmupMs),
                    Integer.toString(metricsPort)),
                    Map.of(CollectiveBenchRank.UNIQUE_ID_ENV, id.encode()));
        } catch (UncheckedIOException e) {
            System.err.println("jccl bench collective: " + e.getMessage());
            return 1;
        }
        try (procs; TerminalBar bar = TerminalBar.open("jccl bench collective", sizes.size(), "sizes", System.err,
                output.progressShown())) {
            while (true) {
                RankProcesses.Event e = procs.next(deadlineNs);
                switch (e) {
                    case RankProcesses.Line(String text) -> {
                        if (text.startsWith(CollectiveBenchRank.RESULT_PREFIX)) {
                            Row row = parse(text);
                            rows.add(row);
                            if (!output.json()) {
                                bar.println(out, String.format(Locale.ROOT,
                                        "  %12d %12d %9s %6s %12.1f %11.3f %11.3f %8d", row.bytes(), row.count(),
                                        typeName, opName, row.seconds() * 1e6, row.algBw(), row.busBw(ranks),
                                        row.wrong()));
                            }
                            bar.step();
                        } else if (text.startsWith("metaroce rank ")) {
                            bar.println(System.err, text);   // JCCL_METAROCE_PRINT_COUNTERS=1
                        }
                    }
                    case RankProcesses.Failed(int rank, int status) -> {
                        bar.close();
                        return fail(procs, "rank " + rank + " exited with status " + status + " before the end");
                    }
                    case RankProcesses.TimedOut t -> {
                        bar.close();
                        return fail(procs, "the run took longer than --timeout " + timeoutSeconds + " s");
                    }
                    case RankProcesses.AllDone d -> {
                        bar.close();   // its last state before the footer
                        if (rows.size() != sizes.size()) {
                            return fail(procs, "the ranks exited after " + rows.size() + " of " + sizes.size()
                                    + " sizes");
                        }
                        return finish(out, rows, typeName, opName);
                    }
                }
            }
        }
    }

    private void validate() {
        OptionChecks.between(spec, "-np", ranks, 1, MAX_RANKS);
        OptionChecks.atLeast(spec, "--iters", iterations, 1);
        if (warmup < 0) {
            throw usage("--warmup must be 0 or more, got " + warmup);
        }
        if (metricsPort < -1 || metricsPort > 65535 - ranks) {
            throw usage("--metrics-port must be 0-" + (65535 - ranks) + ", got " + metricsPort);
        }
        if (warmupMs < 0 || warmupMs > 3_600_000) {
            throw usage("--warmup-ms must be 0-3600000, got " + warmupMs);
        }
        if (timeoutSeconds < 1) {
            throw usage("--timeout must be at least 1 second, got " + timeoutSeconds);
        }
        for (long s : sizes) {
            if (s < type.sizeBytes() || s > MAX_BYTES || s % type.sizeBytes() != 0) {
                throw usage("--bytes: " + s + " is not a whole number of " + type.name().toLowerCase(Locale.ROOT)
                        + " elements (" + type.sizeBytes() + " bytes each) between " + type.sizeBytes() + " and "
                        + MAX_BYTES);
            }
        }
        if (net != null) {
            String name = net.trim().toLowerCase(Locale.ROOT);
            List<String> names = new ArrayList<>();
            ServiceLoader.load(NetTransportProvider.class).forEach(p -> names.add(p.name()));
            if (!names.contains(name)) {
                throw usage("--net: no transport named '" + net + "' on the class path (available: "
                        + String.join(", ", names) + ")");
            }
        }
    }

    /** Reads rank 0's {@code bytes count timedLoopNs wrong}. */
    private Row parse(String line) {
        String[] f = line.substring(CollectiveBenchRank.RESULT_PREFIX.length()).trim().split(" ");
        return new Row(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]) / 1e9 / iterations,
                Long.parseLong(f[3]));
    }

    private int finish(PrintStream out, List<Row> rows, String typeName, String opName) {
        long wrong = rows.stream().mapToLong(Row::wrong).sum();
        if (output.json()) {
            Json j = new Json().beginObject().field("collective", "allreduce").field("ranks", (long) ranks)
                    .field("net", net == null ? "auto" : net.trim().toLowerCase(Locale.ROOT)).field("type", typeName)
                    .field("op", opName).field("warmup", (long) warmup).field("warmupMs", warmupMs)
                    .field("iters", (long) iterations)
                    .beginArray("results");
            for (Row r : rows) {
                j.beginObject().field("bytes", r.bytes()).field("count", r.count()).field("timeUs", r.seconds() * 1e6)
                        .field("algbwGBps", r.algBw()).field("busbwGBps", r.busBw(ranks)).field("wrong", r.wrong())
                        .endObject();
            }
            out.println(j.endArray().field("wrong", wrong).endObject());
        } else {
            out.println("#");
            out.println(wrong == 0 ? "# All results exact." : "# FAILED: " + wrong + " wrong elements.");
        }
        return wrong == 0 ? 0 : 1;
    }

    private int fail(RankProcesses procs, String what) {
        procs.stopAndReport("jccl bench collective: " + what, System.err);
        return 1;
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
