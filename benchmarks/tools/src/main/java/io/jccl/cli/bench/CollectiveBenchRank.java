package io.jccl.cli.bench;

import io.jccl.Buffer;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.UniqueId;
import io.jccl.check.CheckBuffers;
import io.jccl.check.CollectiveCheck;
import io.jccl.check.JitQuiet;
import io.jccl.plan.OpKind;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One rank of {@code jccl bench collective}, in its own JVM, started by {@link CollectiveBenchCommand}. It joins the
 * communicator named by the environment variable {@value #UNIQUE_ID_ENV} and, for each size: allocates and fills
 * its buffers once, runs the warm-up all-reduces (at least {@code warmup} of them, for at least {@code warmupMs} and
 * until the JIT is quiet), a barrier, the timed all-reduces, then checks every element of
 * the last result. Two small all-reduces then combine the ranks' numbers: the timed loop's time (MAX) and the wrong
 * elements (SUM); rank 0 prints them as one {@value #RESULT_PREFIX} line, which the parent reads.
 *
 * <p>Arguments: {@code rank ranks type op warmup iterations net timeoutSeconds bytes,bytes,... warmupMs},
 * {@code net} being {@code -} for the automatic choice. Exit status 0 on success, 1 on a failure (reported on standard error), and
 * the rank halts with status 3 if its parent process exits first, so no rank outlives the benchmark.
 */
public final class CollectiveBenchRank {
    /** The environment variable holding the encoded {@link UniqueId} (a secret: not on the command line). */
    public static final String UNIQUE_ID_ENV = "JCCL_BENCH_UNIQUE_ID";
    /** The start of rank 0's result lines: {@code bytes count timedLoopNs wrong}. */
    public static final String RESULT_PREFIX = "jccl-bench-result ";

    private static final long SEED = 0x5EEDL;
    /** How much longer than --warmup-ms the warm-up waits for a quiet JIT. */
    private static final long MAX_SETTLE_NS = TimeUnit.SECONDS.toNanos(10);

    private CollectiveBenchRank() {
    }

    /**
     * Runs one rank and exits.
     *
     * @param args see the class comment
     */
    public static void main(String[] args) {
        RankProcesses.runChild(args, CollectiveBenchRank::run, "rank failed: ");
    }

    private static int run(String[] args) {
        if (args.length != 10 && args.length != 11) {
            throw new IllegalArgumentException("usage: CollectiveBenchRank rank ranks type op warmup iterations net "
                    + "timeoutSeconds bytes,bytes,... warmupMs [metricsPort]");
        }
        int rank = Integer.parseInt(args[0]);
        int ranks = Integer.parseInt(args[1]);
        DataType type = DataType.parse(args[2]);
        ReduceOp.Kind op = ReduceOp.parse(args[3]).kind();
        int warmup = Integer.parseInt(args[4]);
        long warmupNs = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[9]));
        int iterations = Integer.parseInt(args[5]);
        String net = args[6];
        Duration timeout = Duration.ofSeconds(Long.parseLong(args[7]));
        List<Long> sizes = new ArrayList<>();
        for (String s : args[8].split(",")) {
            sizes.add(Long.parseLong(s));
        }
        String encoded = System.getenv(UNIQUE_ID_ENV);
        if (encoded == null) {
            throw new IllegalArgumentException(UNIQUE_ID_ENV + " is not set");
        }
        CommConfig.Builder config = CommConfig.builder().initTimeout(timeout).opTimeout(timeout);
        if (!net.equals("-")) {
            config.transport(net);
        }
        int metricsPort = args.length == 11 ? Integer.parseInt(args[10]) : -1;
        try (io.jccl.cli.metrics.MetricsEndpoint metrics = metricsPort < 0 ? null
                     : io.jccl.cli.metrics.MetricsEndpoint.startForRank(metricsPort, rank);
             Communicator comm = Communicator.init(UniqueId.parse(encoded), rank, ranks, config.build());
             Arena statsArena = Arena.ofShared()) {
            MemorySegment stats = statsArena.allocate(ValueLayout.JAVA_LONG, 2);
            MemorySegment combined = statsArena.allocate(ValueLayout.JAVA_LONG, 2);
            CheckBuffers checkBuffers = new CheckBuffers();
            for (long bytes : sizes) {
                long count = bytes / type.sizeBytes();
                CollectiveCheck check = new CollectiveCheck(OpKind.ALL_REDUCE, type, op, ranks, count, 0, SEED,
                        checkBuffers);
                ReduceOp reduceOp = check.opFor(rank);
                long timedNs;
                long wrong;
                String firstMismatch = null;
                try (Arena arena = Arena.ofShared()) {
                    MemorySegment send = arena.allocate(bytes, 64);
                    MemorySegment recv = arena.allocate(bytes, 64);
                    check.fillSend(rank, send);
                    recv.fill((byte) 0);   // touch it now, not in the timed loop
                    warmUp(comm, stats, combined, warmup, warmupNs, () -> comm.allReduce(Buffer.of(send),
                            Buffer.of(recv), count, type, reduceOp)
                            .await());
                    comm.barrier().await();
                    long start = System.nanoTime();
                    for (int i = 0; i < iterations; i++) {
                        comm.allReduce(Buffer.of(send), Buffer.of(recv), count, type, reduceOp).await();
                    }
                    timedNs = System.nanoTime() - start;
                    wrong = check.countWrong(rank, recv);
                    if (wrong > 0) {
                        firstMismatch = check.firstMismatch(rank, recv);
                    }
                }
                if (firstMismatch != null) {
                    System.err.printf(Locale.ROOT, "rank %d: %d bytes: %d wrong elements; first: %s%n", rank, bytes,
                            wrong, firstMismatch);
                }
                stats.setAtIndex(ValueLayout.JAVA_LONG, 0, timedNs);
                comm.allReduce(Buffer.of(stats), Buffer.of(combined), 1, DataType.INT64, ReduceOp.MAX).await();
                stats.setAtIndex(ValueLayout.JAVA_LONG, 1, wrong);
                comm.allReduce(Buffer.of(stats.asSlice(8)), Buffer.of(combined.asSlice(8)), 1, DataType.INT64,
                        ReduceOp.SUM).await();
                if (rank == 0) {
                    System.out.println(RESULT_PREFIX + bytes + " " + count + " "
                            + combined.getAtIndex(ValueLayout.JAVA_LONG, 0) + " "
                            + combined.getAtIndex(ValueLayout.JAVA_LONG, 1));
                    System.out.flush();
                }
            }
            comm.barrier().await();
        }
        return 0;
    }

    /**
     * Runs {@code warmup} calls, then more in rounds of {@code max(1, warmup)} until {@code warmupNs} has passed since
     * the first on the slowest rank and every rank's JIT {@link JitQuiet is quiet} (at most {@link #MAX_SETTLE_NS}
     * longer): the JIT compiles the hot paths during the first thousands of calls, and a JVM's steady state is what
     * a long job sees. Each round ends with the barrier the timed loop starts with, so its profile is compiled in,
     * and a tiny all-reduce (MAX) by which the ranks agree on when to stop.
     */
    private static void warmUp(Communicator comm, MemorySegment stats, MemorySegment combined, int warmup,
                               long warmupNs, Runnable call) {
        JitQuiet jit = JitQuiet.ofThisJvm();
        long start = System.nanoTime();
        for (int i = 0; i < warmup; i++) {
            call.run();
        }
        while (warmupNs > 0) {
            comm.barrier().await();
            stats.setAtIndex(ValueLayout.JAVA_LONG, 0, System.nanoTime() - start);
            stats.setAtIndex(ValueLayout.JAVA_LONG, 1, jit.quiet() ? 0 : 1);
            comm.allReduce(Buffer.of(stats), Buffer.of(combined), 2, DataType.INT64, ReduceOp.MAX).await();
            long slowestNs = combined.getAtIndex(ValueLayout.JAVA_LONG, 0);
            boolean compiling = combined.getAtIndex(ValueLayout.JAVA_LONG, 1) != 0;
            if (slowestNs >= warmupNs && (!compiling || slowestNs >= warmupNs + MAX_SETTLE_NS)) {
                return;
            }
            for (int i = 0; i < Math.max(1, warmup); i++) {
                call.run();
            }
        }
    }
}
