package io.jccl.cli.perf;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.check.CheckBuffers;
import io.jccl.check.CollectiveCalls;
import io.jccl.check.CollectiveCheck;
import io.jccl.check.JitQuiet;
import io.jccl.cli.LauncherWatch;
import io.jccl.cli.metrics.MetricsEndpoint;
import io.jccl.cli.plot.LinePlot;
import io.jccl.env.LaunchEnvironment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One rank of {@code jccl perf}: joins through {@link Communicator#fromEnvironment(CommConfig)} and, for each type,
 * reduction, root and size, times the out-of-place and then the in-place form ({@code -w} warm-up iterations, a
 * barrier, {@code -n} timed iterations of {@code -m} calls each), then refills the inputs, runs once more and checks
 * every element (as nccl-tests does). Times are combined over the ranks as {@code -a} says, wrong elements summed;
 * rank 0 prints.
 */
final class PerfRunner {
    private static final long SEED = 0x5EEDL;
    private static final int DEVICE_BYTES = 256;
    /** Rounds per {@link #runCalls} call of the warm-up. */
    private static final int WARM_UP_RUN = 64;

    private final PerfCommand.Settings s;
    private final Communicator comm;
    private final boolean relay;
    private final int rank;
    private final int n;
    private final CheckBuffers checkBuffers = new CheckBuffers();
    private final JitQuiet jit = JitQuiet.ofThisJvm();
    private final MemorySegment stat;
    private final MemorySegment combined;
    private final Buffer statBuffer;
    private final Buffer combinedBuffer;
    /** The collective being measured. */
    private PerfCollective c;

    private PerfRunner(PerfCommand.Settings s, Communicator comm, boolean relay, Arena arena) {
        this.s = s;
        this.comm = comm;
        this.relay = relay;
        this.rank = comm.rank();
        this.n = comm.size();
        this.stat = arena.allocate(ValueLayout.JAVA_LONG, 1);
        this.combined = arena.allocate(ValueLayout.JAVA_LONG, 1);
        this.statBuffer = Buffer.of(stat);
        this.combinedBuffer = Buffer.of(combined);
    }

    /**
     * Runs this process as one rank.
     *
     * @param s     the checked settings
     * @param relay whether the parent {@code jccl perf} started this rank (then rank 0 marks its lines, every rank
     *              exits 0 and rank 0 reports the status in a last line, and the rank halts if the parent exits)
     * @return the exit status: 0, or 1 when an element was wrong
     */
    static int run(PerfCommand.Settings s, boolean relay) {
        if (relay) {
            LauncherWatch.start("jccl perf: rank " + System.getenv().getOrDefault("JCCL_RANK", "?"), System.getenv());
        }
        CommConfig.Builder config = CommConfig.builder();
        if (s.timeoutSeconds() > 0) {
            config.initTimeout(Duration.ofSeconds(s.timeoutSeconds())).opTimeout(Duration.ofSeconds(s.timeoutSeconds()));
        }
        if (!s.transport().equals("auto")) {
            config.transport(s.transport());
        }
        try (MetricsEndpoint metrics = startMetrics(s); Communicator comm = Communicator.fromEnvironment(config.build());
             Arena arena = Arena.ofShared()) {
            PerfRunner runner = new PerfRunner(s, comm, relay, arena);
            int status = runner.runAll();
            comm.barrier().await();
            if (metrics != null && s.metricsLingerSeconds() > 0) {
                lingerForScrapes(s.metricsLingerSeconds());
            }
            return relay ? 0 : status;
        }
    }

    /**
     * Runs this process as one rank of {@code comm}, a communicator someone else created and closes (the AOT training
     * run, which runs several jobs in one JVM); rank 0 prints to standard output.
     *
     * @param s    the checked settings
     * @param comm the communicator
     * @return the exit status: 0, or 1 when an element was wrong
     */
    static int run(PerfCommand.Settings s, Communicator comm) {
        try (Arena arena = Arena.ofShared()) {
            int status = new PerfRunner(s, comm, false, arena).runAll();
            comm.barrier().await();
            return status;
        }
    }

    /** @return the Prometheus endpoint of this rank (port P + local rank), or null without --metrics-port */
    private static MetricsEndpoint startMetrics(PerfCommand.Settings s) {
        if (s.metricsPort() < 0) {
            return null;
        }
        LaunchEnvironment env = LaunchEnvironment.detect();
        MetricsEndpoint endpoint = MetricsEndpoint.startForRank(s.metricsPort(), Math.max(0, env.localRank()));
        System.err.println("jccl perf: rank " + env.rank() + " serves metrics at http://127.0.0.1:" + endpoint.port()
                + "/metrics");
        return endpoint;
    }

    /** Keeps the process, and so its metrics endpoint with the final values, up for a scraper. */
    private static void lingerForScrapes(long seconds) {
        try {
            Thread.sleep(Duration.ofSeconds(seconds));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void print(String line) {
        if (rank == 0) {
            System.out.println(relay ? PerfCommand.OUT_PREFIX + line : line);
            System.out.flush();
        }
    }

    private int runAll() {
        List<PerfFormat.Device> devices = devices();
        List<PerfFormat.Row> all = new ArrayList<>();
        for (PerfCollective each : s.collectives()) {
            c = each;
            all.addAll(runOne(devices));
        }
        long wrong = PerfFormat.totalWrong(all);
        if (s.json()) {
            print(PerfFormat.json(all));
        }
        int status = wrong > 0 ? 1 : 0;
        if (rank == 0 && relay) {
            System.out.println(PerfCommand.STATUS_PREFIX + status);
            System.out.flush();
        }
        if (wrong > 0) {
            System.err.println("jccl perf: rank " + rank + ": " + wrong + " wrong elements over all ranks");
        }
        return status;
    }

    private List<PerfFormat.Row> runOne(List<PerfFormat.Device> devices) {
        if (!s.json()) {
            PerfFormat.header(s.minBytes(), s.maxBytes(), s.stepFactor(), s.stepBytes(), s.warmup(), s.iters(),
                    s.agg(), s.check(), devices).forEach(this::print);
        }
        List<PerfFormat.Row> rows = new ArrayList<>();
        Map<String, List<PerfFormat.Row>> series = new LinkedHashMap<>();
        List<ReduceOp.Kind> ops = c.reducing ? s.ops() : java.util.Collections.singletonList(null);
        List<Integer> roots = new ArrayList<>();
        if (!c.rooted) {
            roots.add(-1);
        } else if (s.root() == -1) {
            for (int r = 0; r < n; r++) {
                roots.add(r);
            }
        } else {
            roots.add(s.root());
        }
        for (DataType type : s.types()) {
            for (ReduceOp.Kind op : ops) {
                for (int root : roots) {
                    String label = typeName(type) + (op == null ? "" : " " + opName(op))
                            + (root < 0 ? "" : " root " + root);
                    for (long size : s.sizes()) {
                        PerfFormat.Row row = measure(type, op, root, size);
                        rows.add(row);
                        series.computeIfAbsent(label, k -> new ArrayList<>()).add(row);
                        if (!s.json()) {
                            print(PerfFormat.row(row));
                        }
                    }
                }
            }
        }
        if (!s.json()) {
            PerfFormat.footer(rows).forEach(this::print);
        }
        if (rank == 0 && s.plot() != null) {
            plot(series);
        }
        return rows;
    }

    private void plot(Map<String, List<PerfFormat.Row>> series) {
        LinePlot p = new LinePlot("jccl perf " + c.cliName() + ", " + n + " ranks, transport "
                + s.transport(), "size (bytes)", "bus bandwidth (GB/s)").logX(true).xTickFormat(PerfRunner::bytes);
        boolean several = series.size() > 1;
        for (Map.Entry<String, List<PerfFormat.Row>> e : series.entrySet()) {
            List<double[]> out = new ArrayList<>();
            List<double[]> in = new ArrayList<>();
            for (PerfFormat.Row r : e.getValue()) {
                if (r.size() > 0) {
                    out.add(new double[] {r.size(), r.outOfPlace().busBw()});
                    if (r.inPlace() != null) {
                        in.add(new double[] {r.size(), r.inPlace().busBw()});
                    }
                }
            }
            String suffix = several ? " (" + e.getKey() + ")" : "";
            p.series("out-of-place" + suffix, out);
            if (!in.isEmpty()) {
                p.series("in-place" + suffix, in);
            }
        }
        try {
            p.writePng(s.plot(), 900, 560);
        } catch (IOException e) {
            throw new UncheckedIOException("--plot: cannot write " + s.plot() + ": " + e.getMessage(), e);
        }
    }

    /** @return e.g. 8, 1K, 64M */
    static String bytes(double v) {
        long b = Math.round(v);
        if (b >= 1L << 30 && b % (1L << 30) == 0) {
            return (b >> 30) + "G";
        }
        if (b >= 1L << 20 && b % (1L << 20) == 0) {
            return (b >> 20) + "M";
        }
        if (b >= 1L << 10 && b % (1L << 10) == 0) {
            return (b >> 10) + "K";
        }
        return Long.toString(b);
    }

    /** Every rank's pid, host and transport, gathered to all. */
    private List<PerfFormat.Device> devices() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = System.getenv().getOrDefault("HOSTNAME", "localhost");
        }
        String net = s.transport().equals("auto") ? System.getenv().getOrDefault(CommConfig.NET, "auto") : s.transport();
        String me = ProcessHandle.current().pid() + " " + host + " " + net;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment mine = arena.allocate(DEVICE_BYTES);
            MemorySegment all = arena.allocate((long) DEVICE_BYTES * n);
            byte[] b = me.getBytes(StandardCharsets.UTF_8);
            MemorySegment.copy(b, 0, mine, ValueLayout.JAVA_BYTE, 0, Math.min(b.length, DEVICE_BYTES - 1));
            comm.allGather(Buffer.of(mine), Buffer.of(all), DEVICE_BYTES, DataType.UINT8).await();
            List<PerfFormat.Device> out = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                String[] f = all.asSlice((long) r * DEVICE_BYTES, DEVICE_BYTES).getString(0).split(" ", 3);
                out.add(new PerfFormat.Device(r, Long.parseLong(f[0]), f[1], f[2]));
            }
            return out;
        }
    }

    /** One placement's buffers: what the call gets, and what the check reads. */
    /** A rank's buffers for one call, as segments (to fill and check) and as the buffers issued (made once). */
    private record Place(MemorySegment send, MemorySegment recv, Buffer sendBuffer, Buffer recvBuffer) {
        Place(MemorySegment send, MemorySegment recv) {
            this(send, recv, Buffer.of(send), Buffer.of(recv));
        }
    }

    private PerfFormat.Row measure(DataType type, ReduceOp.Kind op, int root, long size) {
        int es = type.sizeBytes();
        long count = c.count(size, n, es);
        CollectiveCheck check = new CollectiveCheck(c.checkKind, type, op, n, count, Math.max(root, 0),
                SEED + c.ordinal(), checkBuffers);
        long sendB = check.sendElements(rank) * es;
        long recvB = check.recvElements(rank) * es;
        long big = Math.max(64, Math.max(count * n * es, Math.max(sendB, recvB)));
        try (Arena arena = Arena.ofShared()) {
            // -R 1: registered memory (Communicator.allocate, zeroed); otherwise ordinary memory.
            MemorySegment a = s.register() == 1 ? comm.allocate(big) : arena.allocate(big, 64);
            MemorySegment b = s.register() == 1 ? comm.allocate(big) : arena.allocate(big, 64);
            try {
                a.fill((byte) 0);
                b.fill((byte) 0);
                Place out = new Place(sendB > 0 ? a.asSlice(0, sendB) : null, recvB > 0 ? b.asSlice(0, recvB) : null);
                PerfFormat.Result outR = timeAndCheck(check, type, count, out);
                PerfFormat.Result inR = null;
                if (c.inPlace) {
                    inR = timeAndCheck(check, type, count, inPlace(a, b, root, count, type));
                }
                return new PerfFormat.Row(c.cliName(), c.sizeBytes(count, n, es), count, typeName(type),
                        op == null ? "none" : opName(op), root, outR, inR);
            } finally {
                if (s.register() == 1) {
                    comm.free(a);
                    comm.free(b);
                }
            }
        }
    }

    /** nccl-tests' in-place layouts (those of NCCL's in-place rule); hypercube uses all-gather's. */
    private Place inPlace(MemorySegment a, MemorySegment b, int root, long count, DataType type) {
        CollectiveCalls.Placement p = CollectiveCalls.inPlace(c.checkKind, rank, n, root, count, type, b, a);
        return new Place(p.send(), p.recv());
    }

    private PerfFormat.Result timeAndCheck(CollectiveCheck check, DataType type, long count, Place p) {
        if (p.send() != null && check.sendElements(rank) > 0) {
            check.fillSend(rank, p.send());
        }
        List<CollectiveFuture> pending = new ArrayList<>(s.agg());
        // The warm-up runs the very loop that is timed (a JVM compiles what runs); -W settles after the barrier,
        // whose profile changes made the JIT recompile inside the first timed window (see JitQuiet).
        warmUp(s.warmup(), check, count, p, pending);
        comm.barrier().await();
        settleJit(check, count, p, pending);
        long start = System.nanoTime();
        runCalls(s.iters(), check, count, p, pending);
        double us = (System.nanoTime() - start) / 1e3 / s.iters() / s.agg();
        us = combineTime(us);
        long wrong = -1;
        if (s.check() == 1) {
            if (p.send() != null && check.sendElements(rank) > 0) {
                check.fillSend(rank, p.send());
            }
            if (p.recv() != null && p.recv() != p.send() && !overlaps(p)) {
                p.recv().fill((byte) 0);
            }
            issue(check, count, p).await();
            long mine = 0;
            if (p.recv() != null && check.recvElements(rank) > 0) {
                MemorySegment got = p.recv().asSlice(0, check.recvElements(rank) * type.sizeBytes());
                if (s.testCorrupt() && rank == 0) {
                    got.set(ValueLayout.JAVA_BYTE, 0, (byte) ~got.get(ValueLayout.JAVA_BYTE, 0));
                }
                mine = check.countWrong(rank, got);
                if (mine > 0) {
                    System.err.println("jccl perf: rank " + rank + ": " + c.cliName() + " "
                            + typeName(type) + " count " + count + ": " + mine + " wrong; first: "
                            + check.firstMismatch(rank, got));
                }
            }
            stat.set(ValueLayout.JAVA_LONG, 0, mine);
            comm.allReduce(statBuffer, combinedBuffer, 1, DataType.INT64, ReduceOp.SUM).await();
            wrong = combined.get(ValueLayout.JAVA_LONG, 0);
        }
        long sizeB = c.sizeBytes(count, n, type.sizeBytes());
        double algBw = us > 0 ? sizeB / (us * 1e3) : 0;   // bytes per ns = GB/s
        return new PerfFormat.Result(us, algBw, algBw * c.busFactor(n), wrong);
    }

    /**
     * -W: more warm-up rounds until every rank's JIT {@link JitQuiet is quiet}. The ranks agree through a tiny
     * all-reduce after each round, so they run the same rounds and their calls stay matched.
     */
    private void settleJit(CollectiveCheck check, long count, Place p, List<CollectiveFuture> pending) {
        int callsPerRound = Math.max(1, s.warmup() / 10);
        for (int round = 0; round < s.settleRounds(); round++) {
            stat.set(ValueLayout.JAVA_LONG, 0, jit.quiet() ? 0 : 1);
            comm.allReduce(statBuffer, combinedBuffer, 1, DataType.INT64, ReduceOp.MAX).await();
            if (combined.get(ValueLayout.JAVA_LONG, 0) == 0) {
                return;
            }
            runCalls(callsPerRound, check, count, p, pending);
        }
    }

    /**
     * The warm-up's calls, in runs of {@link #WARM_UP_RUN} through {@link #runCalls}: one long run compiled only its
     * loop, on stack (OSR), and the timed run that enters the method afresh then started interpreted, with the path
     * below it compiled for profiling only, and C2 compiled it inside the first timed block (8 B: 150-210 ms of
     * compilation inside a block of 20,000 calls, 17-22 us a call against 10.6-13.6 for the same form timed second
     * in the same run, 2026-12-07). Many short runs make the JIT compile the method itself, as the timed run uses it.
     */
    private void warmUp(int rounds, CollectiveCheck check, long count, Place p, List<CollectiveFuture> pending) {
        for (long done = 0; done < rounds; done += WARM_UP_RUN) {   // long: -w up to Integer.MAX_VALUE ends
            runCalls((int) Math.min(WARM_UP_RUN, rounds - done), check, count, p, pending);
        }
    }

    /** Issues {@code rounds} times -m calls and waits for them. */
    private void runCalls(int rounds, CollectiveCheck check, long count, Place p, List<CollectiveFuture> pending) {
        for (int i = 0; i < rounds; i++) {
            pending.clear();
            for (int k = 0; k < s.agg(); k++) {
                pending.add(issue(check, count, p));
            }
            for (CollectiveFuture f : pending) {
                f.await();
            }
        }
    }

    private static boolean overlaps(Place p) {
        return p.send() != null && p.recv() != null && !p.send().asOverlappingSlice(p.recv()).isEmpty();
    }

    /** Combines each rank's time per call as -a says: 0 rank 0's, 1 mean, 2 min, 3 max. */
    private double combineTime(double us) {
        stat.set(ValueLayout.JAVA_DOUBLE, 0, us);
        switch (s.average()) {
            case 0 -> comm.broadcast(statBuffer, combinedBuffer, 1, DataType.FLOAT64, 0).await();
            case 2 -> comm.allReduce(statBuffer, combinedBuffer, 1, DataType.FLOAT64, ReduceOp.MIN).await();
            case 3 -> comm.allReduce(statBuffer, combinedBuffer, 1, DataType.FLOAT64, ReduceOp.MAX).await();
            default -> comm.allReduce(statBuffer, combinedBuffer, 1, DataType.FLOAT64, ReduceOp.SUM).await();
        }
        double v = combined.get(ValueLayout.JAVA_DOUBLE, 0);
        return s.average() == 1 ? v / n : v;
    }

    private CollectiveFuture issue(CollectiveCheck check, long count, Place p) {
        if (c == PerfCollective.HYPERCUBE) {
            return hypercube(check.type(), count, p.send(), p.recv());
        }
        return CollectiveCalls.issue(comm, check, p.sendBuffer(), p.recvBuffer());
    }

    /**
     * nccl-tests' hypercube: each rank's block is all-gathered in log2(n) rounds; in round {@code mask} a rank
     * exchanges the {@code mask} blocks it holds with rank {@code rank ^ mask}, as one group of a send and a
     * recv. Rounds depend on each other, so each is awaited; the last round's future is returned.
     */
    private CollectiveFuture hypercube(DataType type, long count, MemorySegment send, MemorySegment recv) {
        long block = count * type.sizeBytes();
        MemorySegment own = recv.asSlice(rank * block, block);
        if (send.address() != own.address()) {
            MemorySegment.copy(send, 0, own, 0, block);
        }
        CollectiveFuture last = null;
        for (int mask = 1; mask < n; mask <<= 1) {
            int peer = rank ^ mask;
            int m = mask;
            long mine = (long) (rank & ~(mask - 1)) * block;
            long theirs = (long) (peer & ~(mask - 1)) * block;
            if (last != null) {
                last.await();
            }
            last = comm.group(g -> {
                g.send(Buffer.of(recv.asSlice(mine, m * block)), m * count, type, peer);
                g.recv(Buffer.of(recv.asSlice(theirs, m * block)), m * count, type, peer);
            });
        }
        return last != null ? last : comm.barrier();
    }

    /** @return nccl-tests' name of the type */
    static String typeName(DataType t) {
        return switch (t) {
            case INT8 -> "int8";
            case UINT8 -> "uint8";
            case INT32 -> "int32";
            case UINT32 -> "uint32";
            case INT64 -> "int64";
            case UINT64 -> "uint64";
            case FLOAT16 -> "half";
            case FLOAT32 -> "float";
            case FLOAT64 -> "double";
            case BFLOAT16 -> "bfloat16";
            case FLOAT8_E4M3 -> "f8e4m3";
            case FLOAT8_E5M2 -> "f8e5m2";
        };
    }

    /** @return nccl-tests' name of the reduction */
    static String opName(ReduceOp.Kind k) {
        return switch (k) {
            case SUM -> "sum";
            case PROD -> "prod";
            case MIN -> "min";
            case MAX -> "max";
            case AVG -> "avg";
            case PRE_MUL_SUM -> "mulsum";
        };
    }
}
