package io.jccl.cli.perf;

import io.jccl.cli.bench.OptionChecks;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.UniqueId;
import io.jccl.cli.Main;
import io.jccl.cli.bench.RankProcesses;
import io.jccl.cli.bench.RankTransportOption;
import io.jccl.cli.progress.ProgressOption;
import io.jccl.cli.progress.TerminalBar;
import io.jccl.env.LaunchEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code jccl perf <collective>}: nccl-tests' {@code <collective>_perf} for JCCL, with its flags and its output.
 * Outside a launcher it starts {@code -np} rank JVMs itself (as {@code jccl run} would: {@code JCCL_RANK},
 * {@code JCCL_SIZE}, {@code JCCL_COMM_ID}) running this same command; inside one ({@code jccl run}, {@code mpirun},
 * {@code srun}, {@code torchrun}, ...) it is one rank, and rank 0 prints.
 */
@Command(name = "perf", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measure one collective like NVIDIA nccl-tests' <collective>_perf: for each size from -b to -e,",
                "time out-of-place and in-place calls across the ranks, check every element of the result,",
                "and print nccl-tests' table (time, algbw, busbw, #wrong). Started outside a launcher, it starts",
                "-np ranks on this host itself; under jccl run / mpirun / srun / torchrun it runs as that rank.",
                "Exit status 1 when any element is wrong or a rank fails, 2 for a bad flag, 78 when the environment",
                "is unusable (a malformed launcher variable, an invalid JCCL_* setting). See docs/perf.md.", ""})
public final class PerfCommand implements Callable<Integer> {
    /** Set in the ranks this command starts: rank 0 marks its lines for the parent, and the ranks halt with it. */
    static final String RELAY_ENV = "JCCL_PERF_RELAY";
    /** Rank 0's table lines, when relayed. */
    static final String OUT_PREFIX = "jccl-perf-out ";
    /** Rank 0's last line when relayed: the exit status. */
    static final String STATUS_PREFIX = "jccl-perf-status ";
    /** Largest -e. */
    static final long MAX_BYTES = 8L << 30;
    /** Most ranks it starts itself. */
    static final int MAX_RANKS = 64;
    /** Most -W rounds: a JIT that still compiles after this many has a reason a longer wait will not fix. */
    static final int MAX_SETTLE_ROUNDS = 100;
    /** -d all. */
    static final List<DataType> ALL_TYPES = List.of(DataType.INT8, DataType.UINT8, DataType.INT32, DataType.UINT32,
            DataType.INT64, DataType.UINT64, DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64, DataType.BFLOAT16,
            DataType.FLOAT8_E4M3, DataType.FLOAT8_E5M2);
    /** -o all. */
    static final List<ReduceOp.Kind> ALL_OPS = List.of(ReduceOp.Kind.SUM, ReduceOp.Kind.PROD, ReduceOp.Kind.MAX,
            ReduceOp.Kind.MIN, ReduceOp.Kind.AVG);

    @Spec
    CommandSpec spec;

    /** Created by picocli. */
    public PerfCommand() {
    }

    @Parameters(index = "0", paramLabel = "COLLECTIVE", description = "all_reduce, all_gather, broadcast, reduce, "
            + "reduce_scatter, alltoall, gather, scatter, sendrecv or hypercube; several, comma-separated, run one "
            + "after the other, each with its own header and footer")
    String collective;

    @Option(names = {"-np", "--np"}, paramLabel = "N", description = "ranks to start on this host (default 1); "
            + "under a launcher, must match its size if given")
    Integer np;

    @Mixin
    RankTransportOption transport;

    @Option(names = {"-b", "--minbytes"}, defaultValue = "32M", paramLabel = "SIZE",
            description = "smallest size, bytes with K/M/G suffix (default ${DEFAULT-VALUE})")
    String minBytesText;

    @Option(names = {"-e", "--maxbytes"}, defaultValue = "32M", paramLabel = "SIZE",
            description = "largest size (default ${DEFAULT-VALUE})")
    String maxBytesText;

    @Option(names = {"-i", "--stepbytes"}, defaultValue = "1M", paramLabel = "SIZE",
            description = "size increment when -f is 1 (default ${DEFAULT-VALUE})")
    String stepBytesText;

    @Option(names = {"-f", "--stepfactor"}, defaultValue = "1", paramLabel = "F",
            description = "size multiplier; 1 steps by -i instead (default ${DEFAULT-VALUE})")
    long stepFactor;

    @Option(names = {"-n", "--iters"}, defaultValue = "20", description = "timed iterations (default ${DEFAULT-VALUE})")
    int iters;

    @Option(names = {"-w", "--warmup_iters"}, defaultValue = "5",
            description = "warm-up iterations (default ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = {"-W", "--settle_rounds"}, defaultValue = "0", paramLabel = "N",
            description = "after the warm-up, up to N more rounds of a tenth of -w calls each until every rank's JIT "
                    + "has finished no compilation for 200 ms (a JVM recompiles what other calls deoptimized: without "
                    + "this a size can be timed while its code is compiled again); 0: off (default ${DEFAULT-VALUE})")
    int settleRounds;

    @Option(names = {"-m", "--agg_iters"}, defaultValue = "1",
            description = "calls issued together per iteration (default ${DEFAULT-VALUE})")
    int agg;

    @Option(names = {"-c", "--check"}, defaultValue = "1", description = "check every element: 1 or 0 "
            + "(default ${DEFAULT-VALUE})")
    int check;

    @Option(names = {"-R", "--local_register"}, defaultValue = "0", description = "1: the test buffers come from "
            + "Communicator.allocate (registered memory that peers on this host read directly); 0: ordinary memory "
            + "(default ${DEFAULT-VALUE})")
    int register;

    @Option(names = {"-o", "--op"}, defaultValue = "sum", description = "sum, prod, min, max, avg, mulsum or all "
            + "(default ${DEFAULT-VALUE})")
    String opText;

    @Option(names = {"-d", "--datatype"}, defaultValue = "float", description = "int8 uint8 int32 uint32 int64 "
            + "uint64 half bfloat16 float double fp8_e4m3 fp8_e5m2 or all (default ${DEFAULT-VALUE})")
    String typeText;

    @Option(names = {"-r", "--root"}, defaultValue = "0", description = "root of broadcast/reduce/gather/scatter; "
            + "-1 for every root in turn (default ${DEFAULT-VALUE})")
    int root;

    @Option(names = {"-a", "--average"}, defaultValue = "1", description = "time reported: 0 rank 0's, 1 mean, "
            + "2 min, 3 max over the ranks (default ${DEFAULT-VALUE})")
    int average;

    @Option(names = {"-T", "--timeout"}, defaultValue = "0", description = "seconds any join or call may take; "
            + "0 for JCCL's defaults (default ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Option(names = {"-J", "--json"}, description = "print exactly one JSON object on standard output instead of the "
            + "table")
    boolean json;

    @Mixin
    ProgressOption progress;

    @Option(names = "--plot", paramLabel = "FILE.png", description = "also draw bus bandwidth against size (PNG)")
    Path plot;

    @Option(names = "--metrics-port", defaultValue = "-1", paramLabel = "P", description = "serve Prometheus metrics "
            + "(docs/metrics.md) at http://127.0.0.1:P+localRank/metrics while the run lasts (default: off)")
    int metricsPort;

    @Option(names = "--metrics-linger", defaultValue = "0", paramLabel = "S", description = "with --metrics-port: keep "
            + "serving the final values S seconds after the run, for a scraper (default ${DEFAULT-VALUE})")
    long metricsLingerSeconds;

    @Option(names = "--test-corrupt", hidden = true, description = "test hook: rank 0 spoils one received element")
    boolean testCorrupt;

    /**
     * Everything a rank needs, checked.
     *
     * @param collectives what, in order (one or more)
     * @param np         ranks asked for, or 0 when not given
     * @param transport  transport name
     * @param sizes      nominal sizes in order
     * @param minBytes   -b
     * @param maxBytes   -e
     * @param stepBytes  -i
     * @param stepFactor -f
     * @param iters      -n
     * @param warmup     -w
     * @param settleRounds -W
     * @param agg        -m
     * @param check      -c
     * @param register   -R: 1 when the buffers come from {@code Communicator.allocate}
     * @param ops        reductions (ignored for non-reducing collectives)
     * @param types      element types
     * @param root       -r
     * @param average    -a
     * @param timeoutSeconds -T
     * @param json       -J
     * @param plot       --plot, or null
     * @param metricsPort --metrics-port: the first rank's port on each host, or -1 for none
     * @param metricsLingerSeconds --metrics-linger
     * @param testCorrupt test hook
     */
    record Settings(List<PerfCollective> collectives, int np, String transport, List<Long> sizes, long minBytes,
                    long maxBytes, long stepBytes, long stepFactor, int iters, int warmup, int settleRounds, int agg,
                    int check, int register, List<ReduceOp.Kind> ops, List<DataType> types, int root, int average,
                    long timeoutSeconds, boolean json, Path plot, int metricsPort, long metricsLingerSeconds,
                    boolean testCorrupt) {
    }

    @Override
    public Integer call() throws InterruptedException {
        Settings s = settings();
        LaunchEnvironment env;
        try {
            env = LaunchEnvironment.detect();
        } catch (JcclException e) {
            if (!e.getMessage().contains("no launcher environment found")) {
                return environmentError("the launcher environment is malformed: " + e.getMessage());
            }
            env = null;
        }
        try {
            // What the ranks' communicators will check, checked once here: before any rank starts, as one line.
            CommConfig.DEFAULT.resolve(System.getenv());
        } catch (JcclException e) {
            return environmentError(e.getMessage());
        }
        if (env != null) {
            checkRanks(s, env.size());
            return PerfRunner.run(s, System.getenv(RELAY_ENV) != null);
        }
        int n = s.np() == 0 ? 1 : s.np();
        checkRanks(s, n);
        return launch(s, n);
    }

    /**
     * Runs {@code jccl perf ARGS} in this JVM as one rank of {@code comm}, through the code a rank under a launcher
     * runs, on a communicator the caller created (and closes); rank 0 prints the table on standard output. Several
     * runs may share one communicator: the AOT training run ({@link io.jccl.cli.aot.AotTrainCommand}) does.
     *
     * @param comm the communicator
     * @param args {@code jccl perf}'s arguments: the collectives, then flags ({@code --transport} only names the
     *             transport in the table here; {@code -np}, if given, must be the communicator's size)
     * @return the exit status: 0, or 1 when an element was wrong
     * @throws CommandLine.ParameterException for a bad flag
     * @throws JcclException when a collective fails
     */
    public static int runAsRank(Communicator comm, List<String> args) {
        PerfCommand command = new PerfCommand();
        new CommandLine(command).parseArgs(args.toArray(String[]::new));
        Settings s = command.settings();
        command.checkRanks(s, comm.size());
        return PerfRunner.run(s, comm);
    }

    /** Parses and checks every flag; the errors name the flag and the value. */
    Settings settings() {
        List<PerfCollective> c = new ArrayList<>();
        try {
            for (String name : collective.split(",")) {
                c.add(PerfCollective.parse(name));
            }
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        long minBytes = size("-b", minBytesText);
        long maxBytes = size("-e", maxBytesText);
        long stepBytes = size("-i", stepBytesText);
        if (minBytes > maxBytes) {
            throw usage("-b " + minBytesText + " is larger than -e " + maxBytesText);
        }
        if (maxBytes > MAX_BYTES) {
            throw usage("-e " + maxBytesText + " is larger than " + MAX_BYTES + " bytes (8G)");
        }
        if (stepFactor < 1) {
            throw usage("-f must be 2 or more to multiply, or 1 to step by -i; got " + stepFactor);
        }
        if (stepFactor == 1 && stepBytes < 1) {
            throw usage("-i must be at least 1 byte when -f is 1; got " + stepBytesText);
        }
        if (np != null && (np < 1 || np > MAX_RANKS)) {
            throw usage("-np must be between 1 and " + MAX_RANKS + ", got " + np);
        }
        OptionChecks.atLeast(spec, "-n", iters, 1);
        if (warmup < 0) {
            throw usage("-w must be 0 or more, got " + warmup);
        }
        if (settleRounds < 0 || settleRounds > MAX_SETTLE_ROUNDS) {
            throw usage("-W must be within 0-" + MAX_SETTLE_ROUNDS + ", got " + settleRounds);
        }
        OptionChecks.atLeast(spec, "-m", agg, 1);
        if (check != 0 && check != 1) {
            throw usage("-c must be 0 or 1, got " + check);
        }
        if (register != 0 && register != 1) {
            throw usage("-R must be 0 or 1, got " + register);
        }
        if (average < 0 || average > 3) {
            throw usage("-a must be 0 (rank 0), 1 (mean), 2 (min) or 3 (max), got " + average);
        }
        if (root < -1) {
            throw usage("-r must be a rank, or -1 for every root, got " + root);
        }
        if (timeoutSeconds < 0) {
            throw usage("-T must be 0 (JCCL's defaults) or a number of seconds, got " + timeoutSeconds);
        }
        String t = transport.checked();
        if (plot != null && !plot.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".png")) {
            throw usage("--plot writes a PNG: give a file name ending in .png, not " + plot);
        }
        List<Long> sizes = new ArrayList<>();
        for (long b = minBytes; b <= maxBytes; b = stepFactor > 1 ? b * stepFactor : b + stepBytes) {
            sizes.add(b);
            if (b == 0 && stepFactor > 1) {
                break;
            }
        }
        return new Settings(List.copyOf(c), np == null ? 0 : np, t, List.copyOf(sizes), minBytes, maxBytes, stepBytes, stepFactor,
                iters, warmup, settleRounds, agg, check, register, ops(), types(), root, average, timeoutSeconds, json,
                plot == null ? null : plot.toAbsolutePath(), metricsPort, metricsLingerSeconds, testCorrupt);
    }

    private void checkRanks(Settings s, int n) {
        if (s.np() != 0 && s.np() != n) {
            throw usage("-np " + s.np() + " but the launcher started " + n + " ranks");
        }
        if (s.collectives().stream().anyMatch(c -> c.rooted) && s.root() >= n) {
            throw usage("-r " + s.root() + " is not a rank of " + n);
        }
        if (s.metricsLingerSeconds() < 0 || s.metricsLingerSeconds() > 3600) {
            throw usage("--metrics-linger must be 0-3600 seconds, got " + s.metricsLingerSeconds());
        }
        if (s.metricsLingerSeconds() > 0 && s.metricsPort() == -1) {
            throw usage("--metrics-linger needs --metrics-port");
        }
        if (s.metricsPort() != -1 && (s.metricsPort() < 1 || s.metricsPort() > 65536 - n)) {
            throw usage("--metrics-port must be 1-" + (65536 - n) + " (ranks serve P to P+" + (n - 1) + "), got "
                    + s.metricsPort());
        }
        if (s.collectives().contains(PerfCollective.HYPERCUBE) && Integer.bitCount(n) != 1) {
            throw usage("hypercube needs a power-of-two number of ranks, got " + n);
        }
    }

    private List<ReduceOp.Kind> ops() {
        String o = opText.trim().toLowerCase(Locale.ROOT);
        if (o.equals("all")) {
            return ALL_OPS;
        }
        try {
            return List.of(o.equals("mulsum") ? ReduceOp.Kind.PRE_MUL_SUM : ReduceOp.parse(o).kind());
        } catch (IllegalArgumentException e) {
            throw usage("-o: unknown reduction '" + opText + "'; expected one of sum, prod, min, max, avg, mulsum, all");
        }
    }

    private List<DataType> types() {
        String d = typeText.trim().toLowerCase(Locale.ROOT);
        if (d.equals("all")) {
            return ALL_TYPES;
        }
        try {
            return List.of(DataType.parse(d));
        } catch (IllegalArgumentException e) {
            throw usage("-d: unknown data type '" + typeText + "'; JCCL supports int8, uint8, int32, uint32, int64, "
                    + "uint64, half (float16), float (float32), double (float64), bfloat16, fp8_e4m3, fp8_e5m2, all");
        }
    }

    /**
     * nccl-tests' sizes: a number of bytes with an optional K, M or G suffix (powers of 1024), read as JCCL's own
     * size settings are ({@link CommConfig#parseBytes}: too large a value is an error, not an overflow).
     *
     * @param flag for the error
     * @param text the value
     * @return bytes
     */
    long size(String flag, String text) {
        try {
            return CommConfig.parseBytes(text);
        } catch (IllegalArgumentException e) {
            throw usage(flag + ": '" + text + "' is not a size; give bytes with an optional K, M or G suffix, e.g. "
                    + "8, 64K, 32M, 1G");
        }
    }

    /** The arguments that make a rank run {@code s}. */
    static List<String> rankArgs(Settings s, int n) {
        List<String> a = new ArrayList<>(List.of("perf",
                String.join(",", s.collectives().stream().map(PerfCollective::cliName).toList()), "-np", Integer.toString(n),
                "--transport", s.transport(), "-b", Long.toString(s.minBytes()), "-e", Long.toString(s.maxBytes()),
                "-i", Long.toString(s.stepBytes()), "-f", Long.toString(s.stepFactor()), "-n", Integer.toString(s.iters()),
                "-w", Integer.toString(s.warmup()), "-W", Integer.toString(s.settleRounds()),
                "-m", Integer.toString(s.agg()), "-c", Integer.toString(s.check()),
                "-R", Integer.toString(s.register()),
                "-r", Integer.toString(s.root()), "-a", Integer.toString(s.average()),
                "-T", Long.toString(s.timeoutSeconds())));
        a.add("-o");
        a.add(s.ops().size() > 1 ? "all" : PerfRunner.opName(s.ops().get(0)));
        a.add("-d");
        a.add(s.types().size() > 1 ? "all" : s.types().get(0).name().toLowerCase(Locale.ROOT));
        if (s.json()) {
            a.add("-J");
        }
        if (s.plot() != null) {
            a.add("--plot");
            a.add(s.plot().toString());
        }
        if (s.metricsPort() >= 0) {
            a.add("--metrics-port");
            a.add(Integer.toString(s.metricsPort()));
            a.add("--metrics-linger");
            a.add(Long.toString(s.metricsLingerSeconds()));
        }
        if (s.testCorrupt()) {
            a.add("--test-corrupt");
        }
        return a;
    }

    /** Starts {@code n} rank JVMs running {@code jccl perf} under a jccl environment and relays rank 0. */
    private int launch(Settings s, int n) throws InterruptedException {
        String commId = UniqueId.create().encode();
        List<String> args = rankArgs(s, n);
        RankProcesses procs;
        try {
            procs = RankProcesses.startEach(Main.class, n, r -> args, r -> {
                Map<String, String> e = new HashMap<>();
                e.put("JCCL_RANK", Integer.toString(r));
                e.put("JCCL_SIZE", Integer.toString(n));
                e.put("JCCL_LOCAL_RANK", Integer.toString(r));
                e.put("JCCL_LOCAL_SIZE", Integer.toString(n));
                e.put("JCCL_COMM_ID", commId);
                e.put(RELAY_ENV, "1");
                if (!s.transport().equals("auto")) {
                    e.put("JCCL_NET", s.transport());
                }
                return e;
            });
        } catch (UncheckedIOException e) {
            System.err.println("jccl perf: " + e.getMessage());
            return 1;
        }
        int status = -1;
        long deadlineNs = System.nanoTime() + TimeUnit.DAYS.toNanos(365);
        // The bar counts table rows (none with -J, whose one object comes at the end: no bar then); it is wiped
        // before each relayed line, so rows never land inside it.
        try (procs; TerminalBar bar = TerminalBar.open("jccl perf", rowCount(s, n), "rows", System.err,
                progress.shown(s.json()) && !s.json())) {
            while (true) {
                RankProcesses.Event e = procs.next(deadlineNs);
                switch (e) {
                    case RankProcesses.Line(String text) -> {
                        if (text.startsWith(OUT_PREFIX)) {
                            String line = text.substring(OUT_PREFIX.length());
                            bar.println(System.out, line);
                            if (!line.isEmpty() && !line.startsWith("#")) {
                                bar.step();
                            }
                        } else if (text.startsWith(STATUS_PREFIX)) {
                            status = Integer.parseInt(text.substring(STATUS_PREFIX.length()).trim());
                        } else {
                            bar.println(System.err, text);
                        }
                    }
                    case RankProcesses.Failed(int rank, int exit) -> {
                        return fail(procs, bar, "rank " + rank + " exited with status " + exit);
                    }
                    case RankProcesses.TimedOut t -> {
                        return fail(procs, bar, "the run took too long");
                    }
                    case RankProcesses.AllDone d -> {
                        if (status < 0) {
                            return fail(procs, bar, "rank 0 ended without reporting a result");
                        }
                        return status;
                    }
                }
            }
        }
    }

    /**
     * @param s the settings
     * @param n ranks
     * @return the table rows the run prints: one per collective, type, reduction, root and size
     */
    static long rowCount(Settings s, int n) {
        long rows = 0;
        for (PerfCollective c : s.collectives()) {
            long ops = c.reducing ? s.ops().size() : 1;
            long roots = c.rooted && s.root() == -1 ? n : 1;
            rows += s.types().size() * ops * roots * s.sizes().size();
        }
        return rows;
    }

    private static int fail(RankProcesses procs, TerminalBar bar, String what) {
        bar.close();   // its last state above the report, not inside it
        procs.stopAndReport("jccl perf: " + what, System.err);
        return 1;
    }

    /** An unusable environment is not a usage error: the error alone, and {@link Main#EXIT_CONFIG}. */
    private int environmentError(String message) {
        spec.commandLine().getErr().println("jccl perf: " + message);
        spec.commandLine().getErr().flush();
        return Main.EXIT_CONFIG;
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
