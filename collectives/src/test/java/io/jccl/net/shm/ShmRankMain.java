package io.jccl.net.shm;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.UniqueId;
import io.jccl.check.CollectiveCalls;
import io.jccl.check.CollectiveCheck;
import io.jccl.plan.OpKind;
import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One rank in its own JVM for {@link ShmMultiProcessTest} (and the other transports' multi-process tests): joins the
 * communicator named by {@code JCCL_TEST_UNIQUE_ID}, runs every collective once with exact checks, prints one line
 * per collective ({@code <KIND> wrong=<n>}), then all-reduces of a few bytes of every type and reduction
 * ({@code SMALL wrong=<n> box=<all-reduces run through the box lines>}), and {@code RESULT OK} or {@code RESULT WRONG <n>}. With
 * {@code JCCL_TEST_ALLOCATE=1} the buffers come from {@link Communicator#allocate} (and are freed after each
 * collective), and the rank prints {@code ALLOCATED IN <mapping>}: the {@code /proc/self/maps} entry holding the
 * first one. Usage: {@code ShmRankMain rank size count}.
 */
public final class ShmRankMain {
    private static final List<OpKind> KINDS = List.of(OpKind.ALL_REDUCE, OpKind.BROADCAST, OpKind.REDUCE,
            OpKind.ALL_GATHER, OpKind.REDUCE_SCATTER, OpKind.ALL_TO_ALL, OpKind.ALL_TO_ALLV, OpKind.GATHER,
            OpKind.SCATTER, OpKind.P2P);

    private ShmRankMain() {
    }

    /**
     * Waits for a rank that runs this main and asserts that it passed: exit code 0, {@code RESULT OK}, and no wrong
     * element in any collective. The multi-process tests of every transport share it.
     *
     * @param jvm            the rank's process
     * @param rank           its rank, for messages
     * @param timeoutSeconds how long it may take to exit
     * @return its output, for further checks
     */
    public static String assertRankPassed(Jvm jvm, int rank, long timeoutSeconds) throws InterruptedException {
        int code = jvm.await(timeoutSeconds);
        assertThat(code).as("rank %d exit code; output:%n%s", rank, jvm.outputText()).isZero();
        String out = jvm.outputText();
        assertThat(out).contains("RESULT OK");
        for (OpKind kind : KINDS) {
            assertThat(out).contains(kind + " wrong=0");
        }
        return out;
    }

    /**
     * Starts the ranks of one job that runs this main, each logging the transport it chose per peer (the DEBUG
     * lines of INIT), which the multi-process tests of every transport check.
     *
     * @param size  how many ranks
     * @param count elements per rank of the full-size collectives
     * @param env   each rank's own environment (transport settings, host id); the job's id and the DEBUG level are
     *              added
     * @param name  the processes' name; {@code -rank<r>} follows it
     * @return the ranks, in rank order
     */
    public static List<Jvm> startJob(int size, long count, IntFunction<Map<String, String>> env, String name)
            throws IOException {
        UniqueId id = UniqueId.create();
        List<String> jvmOptions = new ArrayList<>(JvmProcesses.inheritedJvmOptions());
        jvmOptions.add("-Dorg.slf4j.simpleLogger.log.io.jccl.core.CommInit=debug");
        List<Jvm> ranks = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            Map<String, String> rankEnv = new HashMap<>(env.apply(r));
            rankEnv.put("JCCL_TEST_UNIQUE_ID", id.encode());
            rankEnv.put("JCCL_DEBUG", "DEBUG");
            ranks.add(JvmProcesses.start(ShmRankMain.class, List.of(Integer.toString(r), Integer.toString(size),
                    Long.toString(count)), rankEnv, name + "-rank" + r, jvmOptions));
        }
        return ranks;
    }

    public static void main(String[] args) {
        int rank = Integer.parseInt(args[0]);
        int size = Integer.parseInt(args[1]);
        long count = Long.parseLong(args[2]);
        UniqueId id = UniqueId.parse(System.getenv("JCCL_TEST_UNIQUE_ID"));
        int failures = 0;
        try (Arena arena = Arena.ofShared();
             Communicator comm = Communicator.init(id, rank, size, CommConfig.builder()
                     .initTimeout(Duration.ofSeconds(60)).opTimeout(Duration.ofSeconds(60)).build())) {
            boolean allocate = "1".equals(System.getenv("JCCL_TEST_ALLOCATE"));
            if (allocate) {
                MemorySegment probe = comm.allocate(1);
                System.out.println("ALLOCATED IN " + mappingOf(probe.address()));
                comm.free(probe);
            }
            java.util.concurrent.atomic.AtomicInteger boxed = new java.util.concurrent.atomic.AtomicInteger();
            io.jccl.metrics.OperationListeners.register(comm, (c, kind, type, algorithm, transport, bytes, ns) -> {
                if (algorithm.equals("box")) {
                    boxed.incrementAndGet();
                }
                if (kind == OpKind.ALL_REDUCE && bytes > 1 << 20) {   // the full-size ones, not the 1 MiB of CHOICE
                    System.out.println("LARGE ALL_REDUCE " + algorithm);
                }
            });
            for (OpKind kind : KINDS) {
                failures += run(comm, arena, kind, count, 1000 + kind.ordinal(), allocate);
            }
            String choiceCalls = System.getenv("JCCL_TEST_CHOICE_CALLS");
            if (choiceCalls != null) {
                failures += choiceAllReduces(comm, arena, Integer.parseInt(choiceCalls));
            }
            int smallWrong = smallAllReduces(comm, arena);
            System.out.println("SMALL wrong=" + smallWrong + " box=" + boxed.get());
            failures += smallWrong;
            comm.barrier().await();
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            System.out.println("RESULT FAILED " + e);
            System.exit(2);
        }
        System.out.println(failures == 0 ? "RESULT OK" : "RESULT WRONG " + failures);
        System.exit(failures == 0 ? 0 : 1);
    }

    /**
     * Out-of-place all-reduces of 1 MiB a rank (the ring's size when not single copy), each exactly checked, through the probes and verdicts that choose
     * between single copy and the pipelined copies; prints {@code CHOICE wrong=N algorithms=...}, the algorithm of
     * every call in order (the same on every rank when they chose alike).
     *
     * @return the wrong elements
     */
    private static int choiceAllReduces(Communicator comm, Arena arena, int calls) {
        int rank = comm.rank();
        long count = 256 << 10;
        MemorySegment send = arena.allocate(count * 4, 64);
        MemorySegment recv = arena.allocate(count * 4, 64);
        StringBuilder algorithms = new StringBuilder();
        java.util.concurrent.atomic.AtomicBoolean listening = new java.util.concurrent.atomic.AtomicBoolean(true);
        io.jccl.metrics.OperationListener listener = (c, kind, type, algorithm, transport, bytes, ns) -> {
            if (listening.get()) {
                synchronized (algorithms) {
                    algorithms.append(algorithm.equals("recursive_doubling") ? 'd'
                            : algorithm.equals("ring") ? 'r' : '?');
                }
            }
        };
        io.jccl.metrics.OperationListeners.register(comm, listener);
        int wrong = 0;
        for (int i = 0; i < calls; i++) {
            CollectiveCheck check = new CollectiveCheck(OpKind.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM,
                    comm.size(), count, -1, 5000 + i);
            check.fillSend(rank, send);
            comm.allReduce(Buffer.of(send), Buffer.of(recv), count, DataType.FLOAT32, check.opFor(rank)).await();
            wrong += (int) check.countWrong(rank, recv);
        }
        listening.set(false);
        io.jccl.metrics.OperationListeners.unregister(comm, listener);
        synchronized (algorithms) {
            System.out.println("CHOICE wrong=" + wrong + " algorithms=" + algorithms);
        }
        return wrong;
    }

    /**
     * All-reduces of a few bytes (one element, and as many as 48 bytes hold: the box all-reduce where every rank is on
     * this host) of every type with every reduction it supports, exactly checked, between a broadcast of 8 bytes and
     * an all-reduce of 64 (other algorithms) so that box calls follow others and each other; then two from and into
     * {@code double[]}.
     *
     * @return the wrong elements
     */
    private static int smallAllReduces(Communicator comm, Arena arena) {
        int rank = comm.rank();
        int n = comm.size();
        int wrong = 0;
        long seed = 7;
        MemorySegment bytes = arena.allocate(64);
        for (DataType type : DataType.values()) {
            for (ReduceOp.Kind op : ReduceOp.Kind.values()) {
                if (new CollectiveCheck(OpKind.ALL_REDUCE, type, op, n, 1, -1, 0).opFor(0).unsupportedReason(type)
                        != null) {
                    continue;
                }
                for (long count : new long[] {1, 48 / type.sizeBytes(), 64 / type.sizeBytes()}) {
                    CollectiveCheck check = new CollectiveCheck(OpKind.ALL_REDUCE, type, op, n, count, -1, seed++);
                    MemorySegment send = arena.allocate(count * type.sizeBytes());
                    MemorySegment recv = arena.allocate(count * type.sizeBytes());
                    check.fillSend(rank, send);
                    comm.allReduce(Buffer.of(send), Buffer.of(recv), count, type, check.opFor(rank)).await();
                    long w = check.countWrong(rank, recv);
                    if (w > 0) {
                        System.out.println("SMALL " + type + " " + op + " count " + count + ": "
                                + check.firstMismatch(rank, recv));
                    }
                    wrong += (int) w;
                    comm.broadcast(Buffer.of(bytes), Buffer.of(bytes), 8, DataType.UINT8, (int) (seed % n)).await();
                }
            }
        }
        // From and into Java arrays (heap memory), in place and out of place.
        double[] values = {rank + 0.5, -rank, 3};
        double[] sums = new double[3];
        comm.allReduce(Buffer.of(values), Buffer.of(sums), 3, DataType.FLOAT64, ReduceOp.SUM).await();
        comm.allReduce(Buffer.of(values), Buffer.of(values), 3, DataType.FLOAT64, ReduceOp.MAX).await();
        double[] expectedSums = {n * (n - 1) / 2.0 + 0.5 * n, -n * (n - 1) / 2.0, 3.0 * n};
        double[] expectedMax = {n - 0.5, 0, 3};
        if (!java.util.Arrays.equals(sums, expectedSums) || !java.util.Arrays.equals(values, expectedMax)) {
            System.out.println("SMALL double[]: " + java.util.Arrays.toString(sums) + " and "
                    + java.util.Arrays.toString(values) + " instead of " + java.util.Arrays.toString(expectedSums)
                    + " and " + java.util.Arrays.toString(expectedMax));
            wrong++;
        }
        return wrong;
    }

    /** @return the name of the mapping holding {@code address} in {@code /proc/self/maps}, or "?" */
    private static String mappingOf(long address) {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/maps"))) {
                String[] f = line.trim().split("\\s+", 6);
                String[] range = f[0].split("-");
                if (Long.compareUnsigned(Long.parseUnsignedLong(range[0], 16), address) <= 0
                        && Long.compareUnsigned(address, Long.parseUnsignedLong(range[1], 16)) < 0) {
                    return f.length > 5 ? f[5] : "(anonymous)";
                }
            }
        } catch (java.io.IOException e) {
            return "? (" + e + ")";
        }
        return "?";
    }

    private static int run(Communicator comm, Arena arena, OpKind kind, long size, long seed, boolean allocate) {
        int rank = comm.rank();
        int n = comm.size();
        long count = switch (kind) {
            case ALL_GATHER, GATHER, REDUCE_SCATTER, SCATTER, ALL_TO_ALL, ALL_TO_ALLV -> Math.max(1, size / n);
            default -> size;
        };
        int root = (int) (seed % n);
        DataType type = DataType.FLOAT32;
        boolean reduces = kind == OpKind.ALL_REDUCE || kind == OpKind.REDUCE || kind == OpKind.REDUCE_SCATTER;
        CollectiveCheck check = new CollectiveCheck(kind, type, reduces ? ReduceOp.Kind.SUM : null, n, count, root,
                seed);
        boolean rootOnly = kind == OpKind.BROADCAST || kind == OpKind.REDUCE || kind == OpKind.GATHER
                || kind == OpKind.SCATTER;
        MemorySegment send = check.sendElements(rank) > 0 || !rootOnly
                ? memory(comm, arena, allocate, Math.max(1, check.sendElements(rank) * type.sizeBytes())) : null;
        MemorySegment recv = check.recvElements(rank) > 0 || !rootOnly
                ? memory(comm, arena, allocate, Math.max(1, check.recvElements(rank) * type.sizeBytes())) : null;
        if (send != null) {
            check.fillSend(rank, send);
        }
        CollectiveFuture f = CollectiveCalls.issue(comm, check, Buffer.of(send), Buffer.of(recv));
        f.await();
        long wrong = check.recvElements(rank) > 0 ? check.countWrong(rank, recv) : 0;
        System.out.println(kind + " wrong=" + wrong + (wrong > 0 ? " first: " + check.firstMismatch(rank, recv) : ""));
        if (allocate) {
            // Freed at once: an operation completes after its sends did, and a send from registered memory
            // completes once its receiver has copied it.
            for (MemorySegment m : new MemorySegment[] {send, recv}) {
                if (m != null) {
                    comm.free(m);
                }
            }
        }
        return wrong == 0 ? 0 : 1;
    }

    private static MemorySegment memory(Communicator comm, Arena arena, boolean allocate, long bytes) {
        return allocate ? comm.allocate(bytes) : arena.allocate(bytes);
    }
}
