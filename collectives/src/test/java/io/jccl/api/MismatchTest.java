package io.jccl.api;

import io.jccl.Algorithm;
import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static io.jccl.DataType.FLOAT32;
import static io.jccl.DataType.INT32;
import static io.jccl.ReduceOp.SUM;
import static io.jccl.api.CommAssertions.assertPattern;
import static io.jccl.api.CommAssertions.fillPattern;
import static io.jccl.api.CommAssertions.patternByte;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * One rank (the last) calls with a different count, type, operation, root or collective than the others, on
 * 2, 3 and 4 ranks and, for some cases, over TCP.
 *
 * <p>What must hold: no rank hangs; every rank whose call fails fails with INVALID_USAGE naming the
 * difference; the odd rank's call fails (over the in-JVM transport, where a send completes only when it is
 * matched); for collectives in which every rank's result depends on every other rank (all-reduce, all-gather,
 * reduce-scatter, all-to-all) every rank's call fails; no rank receives data from a mismatched call; and
 * afterwards every rank is broken: {@code asyncError()} reports the INVALID_USAGE and later operations fail
 * with it. A rank whose own part of a rooted collective or of a send/receive did not involve the odd rank may
 * complete its call (it receives correct data) and learns of the failure right after.
 *
 * <p>The cases run with the ring forced, so that all-reduce sends messages; the all-reduce cases run again with
 * AUTO ({@link #mismatchIsDetectedOnTheDirectPath}), where in-JVM ranks read each other's buffers instead and the
 * published and announced calls are compared before anything is read.
 */
@Tag("integration")
class MismatchTest {
    static final int[] RANKS = {2, 3, 4};
    private static final long BYTES = 16 << 10;

    /** Issues one rank's call; {@code odd} says whether this is the rank that calls differently. */
    @FunctionalInterface
    interface Issue {
        CollectiveFuture issue(Communicator c, boolean odd, MemorySegment send, MemorySegment recv);
    }

    /** What a rank's receive buffer may hold afterwards. */
    enum Written {
        /** Nothing: it keeps its pattern. */
        NOTHING,
        /** Only bytes of rank 0's send buffer at the same position (a broadcast from rank 0). */
        BROADCAST_OF_RANK_0,
        /** Only the rank's block of rank 0's send buffer (a scatter from rank 0 of 100 FLOAT32). */
        SCATTER_OF_RANK_0,
        /** Not checked: ranks legitimately copy their own data before any message (all-gather, p2p). */
        NOT_CHECKED
    }

    /**
     * @param name      test name
     * @param issue     the calls
     * @param allFail   whether every rank's call must fail (every rank's result depends on the odd rank)
     * @param written   what receive buffers may hold afterwards
     * @param fragments alternatives: every failure names at least one of them
     */
    record Case(String name, Issue issue, boolean allFail, Written written, String... fragments) {
    }

    /** One rank's call in which one value may differ from the other ranks' calls. */
    @FunctionalInterface
    interface Varied<T> {
        CollectiveFuture issue(Communicator c, MemorySegment send, MemorySegment recv, T value);
    }

    /** One rank's call of a collective, on 100 FLOAT32 (sum, root 0) where it takes them. */
    @FunctionalInterface
    interface Call {
        CollectiveFuture issue(Communicator c, MemorySegment send, MemorySegment recv);
    }

    static final Call ALL_REDUCE = (c, s, r) -> c.allReduce(Buffer.of(s), Buffer.of(r), 100, FLOAT32, SUM);
    static final Call BROADCAST = (c, s, r) -> c.broadcast(Buffer.of(s), Buffer.of(r), 100, FLOAT32, 0);
    static final Call REDUCE = (c, s, r) -> c.reduce(Buffer.of(s), Buffer.of(r), 100, FLOAT32, SUM, 0);
    static final Call ALL_GATHER = (c, s, r) -> c.allGather(Buffer.of(s), Buffer.of(r), 100, FLOAT32);
    static final Call REDUCE_SCATTER = (c, s, r) -> c.reduceScatter(Buffer.of(s), Buffer.of(r), 100, FLOAT32, SUM);
    static final Call BARRIER = (c, s, r) -> c.barrier();

    /** The difference as a failure names it, with either call first: {@code "<what> a vs b"}, {@code "<what> b vs a"}. */
    static String[] either(String what, Object a, Object b) {
        return new String[] {what + " " + a + " vs " + b, what + " " + b + " vs " + a};
    }

    /** {@code op} where the odd rank passes {@code odd} as its {@code what} and the others pass {@code even}. */
    static <T> Case differs(String op, String what, T even, T odd, boolean allFail, Written written, Varied<T> call) {
        return new Case(op + " " + what + " " + even + " vs " + odd,
                (c, isOdd, s, r) -> call.issue(c, s, r, isOdd ? odd : even), allFail, written, either(what, even, odd));
    }

    /** The odd rank calls {@code oddOp} where the others call {@code evenOp}. */
    static Case operations(String evenOp, Call even, String oddOp, Call odd, boolean allFail, Written written) {
        return new Case(evenOp + " vs " + oddOp, (c, isOdd, s, r) -> (isOdd ? odd : even).issue(c, s, r), allFail,
                written, either("operation", evenOp, oddOp));
    }

    static List<Case> cases() {
        Written nothing = Written.NOTHING;
        Varied<Integer> allReduceCount = (c, s, r, count) -> c.allReduce(Buffer.of(s), Buffer.of(r), count, FLOAT32,
                SUM);
        List<Case> cs = new ArrayList<>(List.of(
                differs("allReduce", "count", 1000, 1001, true, nothing, allReduceCount),
                differs("allReduce", "type", FLOAT32, INT32, true, nothing,
                        (c, s, r, type) -> c.allReduce(Buffer.of(s), Buffer.of(r), 100, type, SUM)),
                differs("allReduce", "reduction", SUM, ReduceOp.MAX, true, nothing,
                        (c, s, r, op) -> c.allReduce(Buffer.of(s), Buffer.of(r), 100, FLOAT32, op)),
                differs("allReduce", "count", 64, 0, true, nothing, allReduceCount),
                differs("allReduce INT64", "count", 1, 2, true, nothing,
                        (c, s, r, count) -> c.allReduce(Buffer.of(s), Buffer.of(r), count, DataType.INT64, SUM)),
                differs("broadcast", "root", 0, 1, false, Written.BROADCAST_OF_RANK_0,
                        (c, s, r, root) -> c.broadcast(Buffer.of(s), Buffer.of(r), 100, FLOAT32, root)),
                differs("in-place broadcast", "root", 0, 1, false, Written.NOT_CHECKED,
                        (c, s, r, root) -> c.broadcast(Buffer.of(r), 100, FLOAT32, root)),
                differs("broadcast", "count", 100, 0, false, Written.BROADCAST_OF_RANK_0,
                        (c, s, r, count) -> c.broadcast(Buffer.of(s), Buffer.of(r), count, FLOAT32, 0)),
                differs("reduce", "root", 0, 1, false, nothing,
                        (c, s, r, root) -> c.reduce(Buffer.of(s), Buffer.of(r), 100, FLOAT32, SUM, root)),
                differs("gather", "root", 0, 1, false, Written.NOT_CHECKED,
                        (c, s, r, root) -> c.gather(Buffer.of(s), Buffer.of(r), 100, FLOAT32, root)),
                differs("scatter", "root", 0, 1, false, Written.SCATTER_OF_RANK_0,
                        (c, s, r, root) -> c.scatter(Buffer.of(s), Buffer.of(r), 100, FLOAT32, root)),
                differs("scatter", "count", 100, 101, false, Written.SCATTER_OF_RANK_0,
                        (c, s, r, count) -> c.scatter(Buffer.of(s), Buffer.of(r), count, FLOAT32, 0)),
                operations("broadcast", BROADCAST, "allReduce", ALL_REDUCE, false, Written.NOT_CHECKED),
                operations("allGather", ALL_GATHER, "reduceScatter", REDUCE_SCATTER, true, Written.NOT_CHECKED),
                operations("reduce", REDUCE, "allReduce", ALL_REDUCE, false, nothing),
                operations("barrier", BARRIER, "allReduce", ALL_REDUCE, false, nothing),
                differs("allGather", "count", 100, 101, true, Written.NOT_CHECKED,
                        (c, s, r, count) -> c.allGather(Buffer.of(s), Buffer.of(r), count, FLOAT32)),
                differs("reduceScatter", "count", 100, 99, true, nothing,
                        (c, s, r, count) -> c.reduceScatter(Buffer.of(s), Buffer.of(r), count, FLOAT32, SUM)),
                differs("allToAll", "count", 50, 51, true, Written.NOT_CHECKED,
                        (c, s, r, count) -> c.allToAll(Buffer.of(s), Buffer.of(r), count, FLOAT32))));
        cs.add(new Case("allToAllv: the odd rank sends rank 0 one element more",
                (c, odd, s, r) -> {
                    int n = c.size();
                    long[] counts = new long[n];
                    long[] displs = new long[n];
                    for (int i = 0; i < n; i++) {
                        counts[i] = 10;
                        displs[i] = 20L * i;
                    }
                    long[] sendCounts = counts.clone();
                    if (odd) {
                        sendCounts[0] = 11;
                    }
                    return c.allToAllv(Buffer.of(s), sendCounts, displs, Buffer.of(r), counts, displs, FLOAT32);
                }, false, Written.NOT_CHECKED, "message of 44 bytes", "receive buffer of 40 bytes"));
        cs.add(new Case("send/recv ring, the odd rank sends 12 elements, its peer expects 10",
                (c, odd, s, r) -> ring(c, s, r, odd ? 12 : 10, 10, FLOAT32, FLOAT32), false, Written.NOT_CHECKED,
                either("count", 10, 12)));
        cs.add(new Case("send/recv ring, the odd rank sends INT32, its peer expects FLOAT32",
                (c, odd, s, r) -> ring(c, s, r, 10, 10, odd ? INT32 : FLOAT32, FLOAT32), false, Written.NOT_CHECKED,
                either("type", FLOAT32, INT32)));
        return cs;
    }

    /** Every rank sends to rank+1 and receives from rank-1, in one group. */
    private static CollectiveFuture ring(Communicator c, MemorySegment s, MemorySegment r, long sendCount,
                                         long recvCount, DataType sendType, DataType recvType) {
        int n = c.size();
        return c.group(g -> {
            g.send(Buffer.of(s), sendCount, sendType, (c.rank() + 1) % n);
            g.recv(Buffer.of(r), recvCount, recvType, (c.rank() - 1 + n) % n);
        });
    }

    @TestFactory
    Stream<DynamicTest> mismatchIsDetected() {
        List<DynamicTest> tests = new ArrayList<>();
        for (int n : RANKS) {
            for (Case c : cases()) {
                tests.add(DynamicTest.dynamicTest("n=" + n + " " + c.name(), () -> run(n, c, null)));
            }
        }
        return tests.stream();
    }

    /** The cases in which some rank calls all-reduce, and more, with all-reduce reading peers' buffers in place. */
    @TestFactory
    Stream<DynamicTest> mismatchIsDetectedOnTheDirectPath() {
        List<DynamicTest> tests = new ArrayList<>();
        for (int n : RANKS) {
            for (Case c : directCases()) {
                tests.add(DynamicTest.dynamicTest("direct n=" + n + " " + c.name(),
                        () -> run(n, c, null, Algorithm.AUTO)));
            }
        }
        return tests.stream();
    }

    static List<Case> directCases() {
        List<Case> cs = new ArrayList<>();
        for (Case c : cases()) {
            if (c.name().contains("allReduce")) {
                cs.add(c);
            }
        }
        Written nothing = Written.NOTHING;
        cs.add(operations("allReduce", ALL_REDUCE, "reduce", REDUCE, true, nothing));
        cs.add(operations("allReduce", ALL_REDUCE, "barrier", BARRIER, true, nothing));
        cs.add(operations("allReduce", ALL_REDUCE, "broadcast", BROADCAST, true, nothing));
        cs.add(new Case("allReduce pre-mul-sum vs sum, count 4000 vs 4096",
                (c, odd, s, r) -> c.allReduce(Buffer.of(s), Buffer.of(r), odd ? 4096 : 4000, FLOAT32,
                        odd ? SUM : ReduceOp.preMulSum(2)),
                true, nothing, either("reduction", "pre_mul_sum", "sum")));
        cs.add(differs("in-place allReduce", "count", 4000, 4001, true, nothing,
                (c, s, r, count) -> c.allReduce(Buffer.of(r), Buffer.of(r), count, DataType.INT32, ReduceOp.MIN)));
        return cs;
    }

    @TestFactory
    Stream<DynamicTest> mismatchIsDetectedOverTcp() {
        List<DynamicTest> tests = new ArrayList<>();
        for (int n : new int[] {2, 3}) {
            for (Case c : cases()) {
                if (c.name().startsWith("allReduce count 1000") || c.name().startsWith("broadcast root")
                        || c.name().startsWith("allGather vs") || c.name().contains("sends 12 elements")) {
                    tests.add(DynamicTest.dynamicTest("tcp n=" + n + " " + c.name(), () -> run(n, c, "tcp")));
                }
            }
        }
        return tests.stream();
    }

    static void run(int n, Case c, String transport) {
        run(n, c, transport, Algorithm.RING);
    }

    static void run(int n, Case c, String transport, Algorithm algorithm) {
        CommConfig.Builder config = CommConfig.builder().opTimeout(Duration.ofSeconds(10))
                .algorithm(algorithm);
        if (transport != null) {
            config.transport(transport);
        }
        List<Communicator> comms = Communicator.local(n, config.build());
        Arena arena = Arena.ofShared();
        try {
            MemorySegment[] send = new MemorySegment[n];
            MemorySegment[] recv = new MemorySegment[n];
            List<CollectiveFuture> fs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                send[r] = arena.allocate(BYTES);
                recv[r] = arena.allocate(BYTES);
                fillPattern(send[r], 2 * r);
                fillPattern(recv[r], 2 * r + 1);
            }
            for (int r = 0; r < n; r++) {
                fs.add(c.issue().issue(comms.get(r), r == n - 1, send[r], recv[r]));
            }
            int failed = 0;
            for (int r = 0; r < n; r++) {
                Optional<JcclException> e = outcome(fs.get(r));
                if (e.isPresent()) {
                    failed++;
                    assertNamesTheDifference(e.get(), c, "rank " + r + "'s call");
                } else {
                    assertThat(c.allFail()).as("rank %d's call completed, but every rank depends on the odd one", r)
                            .isFalse();
                }
            }
            if (transport == null) {
                assertThat(fs.get(n - 1).error()).as("the odd rank's call fails").isPresent();
            } else {
                assertThat(failed).as("ranks whose call failed").isPositive();
            }
            for (int r = 0; r < n; r++) {
                assertPattern(send[r], 2 * r, "rank " + r + " send");
                assertWritten(c.written(), r, send, recv[r]);
            }
            // Every rank is broken now: the error stays, later operations fail fast with the same code.
            for (int r = 0; r < n; r++) {
                Communicator comm = comms.get(r);
                assertNamesTheDifference(awaitAsyncError(comm), c, "rank " + r + "'s asyncError");
                JcclException later = CommAssertions.awaitFailure(comm.allReduce(Buffer.of(send[r]),
                        Buffer.of(recv[r]), 4, FLOAT32, SUM));
                assertThat(later.code()).as("later op on rank %d: %s", r, later.getMessage())
                        .isEqualTo(ErrorCode.INVALID_USAGE);
                assertThat(later.detail()).contains("do not match");
            }
        } finally {
            // Abort (prompt even if a rank still waits) before the buffers go away.
            CommAssertions.abortAll(comms);
            arena.close();
        }
    }

    /** @return the failure, or empty when the call completed; fails the test on a hang */
    private static Optional<JcclException> outcome(CollectiveFuture f) {
        try {
            if (!f.await(CommAssertions.HANG)) {
                fail("a call neither completed nor failed (hang)");
            }
            return Optional.empty();
        } catch (JcclException e) {
            return Optional.of(e);
        }
    }

    private static void assertNamesTheDifference(JcclException e, Case c, String what) {
        assertThat(e.code()).as("%s: %s", what, e.getMessage()).isEqualTo(ErrorCode.INVALID_USAGE);
        assertThat(e.detail()).as(what).contains("do not match");
        assertThat(e.detail()).as("%s names the difference", what).containsAnyOf(c.fragments());
    }

    /** A rank that completed its call learns of the failure right after; waits for that (bounded). */
    static JcclException awaitAsyncError(Communicator comm) {
        long until = System.nanoTime() + CommAssertions.HANG.toNanos();
        while (comm.asyncError().isEmpty()) {
            if (System.nanoTime() - until > 0) {
                fail("rank " + comm.rank() + " never learned that the communicator failed");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return comm.asyncError().get();
    }

    private static void assertWritten(Written written, int r, MemorySegment[] send, MemorySegment recv) {
        switch (written) {
            case NOTHING -> assertPattern(recv, 2 * r + 1, "rank " + r + " recv");
            case BROADCAST_OF_RANK_0 -> assertOnly(recv, 2 * r + 1, send[0], 0, 400, r);
            case SCATTER_OF_RANK_0 -> assertOnly(recv, 2 * r + 1, send[0], 400L * r, 400, r);
            case NOT_CHECKED -> {
            }
            default -> throw new IllegalStateException();
        }
    }

    /** Every byte of recv is its pattern, or (within the first {@code bytes}) the byte rank 0 sent there. */
    private static void assertOnly(MemorySegment recv, int seed, MemorySegment source, long sourceOffset, long bytes,
                                   int rank) {
        for (long i = 0; i < recv.byteSize(); i++) {
            byte got = recv.get(ValueLayout.JAVA_BYTE, i);
            boolean legit = got == patternByte(seed, i)
                    || i < bytes && got == source.get(ValueLayout.JAVA_BYTE, sourceOffset + i);
            if (!legit) {
                fail("rank " + rank + " recv byte " + i + " holds neither its pattern nor rank 0's data");
            }
        }
    }
}
