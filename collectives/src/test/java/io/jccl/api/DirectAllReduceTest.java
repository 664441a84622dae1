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
import io.jccl.metrics.OperationListeners;
import io.jccl.plan.OpKind;
import io.jccl.testing.CollectiveRun;
import io.jccl.testing.LocalComms;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;

import static io.jccl.DataType.FLOAT32;
import static io.jccl.ReduceOp.SUM;
import static io.jccl.api.CommAssertions.HANG;
import static io.jccl.api.CommAssertions.assertAllReduceWorks;
import static io.jccl.api.CommAssertions.awaitFailure;
import static io.jccl.api.CommAssertions.awaitSuccess;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * All-reduce between the ranks of one {@code Communicator.local} call reads the peers' buffers in place
 * ({@code direct}) when the algorithm is AUTO: exact for every type and reduction, in place and out of place, on 1
 * to 5 ranks and counts from 0 to several slices per block; really chosen (and not when an algorithm is forced, over
 * TCP, or in a split's children); in groups; and failing, not hanging, when a rank is aborted or a peer never comes.
 * Mismatches on the direct path are in {@link MismatchTest}. Timeouts here only catch hangs.
 */
@Tag("integration")
class DirectAllReduceTest {
    /** 0, 1, primes, and more elements than several slices of 64 KiB for every type on up to 5 ranks. */
    static final long[] COUNTS = {0, 1, 2, 3, 31, 1021, 40_009, 300_007};
    static final int MAX_RANKS = 5;

    private final List<List<Communicator>> created = new ArrayList<>();

    @AfterEach
    void tearDown() {
        created.forEach(CommAssertions::abortAll);
    }

    private List<Communicator> local(int n, CommConfig config) {
        List<Communicator> comms = Communicator.local(n, config);
        created.add(comms);
        return comms;
    }

    @TestFactory
    Stream<DynamicTest> exactForEveryTypeAndReduction() {
        List<DynamicTest> tests = new ArrayList<>();
        for (int n = 1; n <= MAX_RANKS; n++) {
            for (long count : COUNTS) {
                for (DataType type : DataType.values()) {
                    for (ReduceOp.Kind op : ReduceOp.Kind.values()) {
                        for (boolean inPlace : new boolean[] {false, true}) {
                            int ranks = n;
                            long seed = Objects.hash("direct", n, count, type, op, inPlace);
                            tests.add(DynamicTest.dynamicTest("n=" + n + " count=" + count + " " + type + " " + op
                                    + (inPlace ? " in-place" : ""), () -> CollectiveRun.run(LocalComms.get(ranks),
                                    OpKind.ALL_REDUCE, type, op, count, inPlace, seed)));
                        }
                    }
                }
            }
        }
        return tests.stream();
    }

    /**
     * Random floating-point inputs, whose sums depend on the order of the additions: every block is reduced once, by
     * its owner, so every rank still ends with the same bits.
     */
    @Test
    void everyRankHoldsTheSameBits() {
        int n = 5;
        int count = 100_003;
        List<Communicator> comms = LocalComms.get(n);
        java.util.Random random = new java.util.Random(7);
        for (DataType type : new DataType[] {DataType.FLOAT32, DataType.FLOAT64, DataType.FLOAT16,
            DataType.BFLOAT16}) {
            for (int variant = 0; variant < 3; variant++) {
                try (Arena arena = Arena.ofShared()) {
                    long bytes = (long) count * type.sizeBytes();
                    MemorySegment[] bufs = new MemorySegment[n];
                    List<CollectiveFuture> fs = new ArrayList<>();
                    for (int r = 0; r < n; r++) {
                        bufs[r] = arena.allocate(bytes);
                        for (long i = 0; i < count; i++) {
                            double v = random.nextGaussian() * 1000;
                            switch (type) {
                                case FLOAT32 -> bufs[r].setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) v);
                                case FLOAT64 -> bufs[r].setAtIndex(ValueLayout.JAVA_DOUBLE, i, v);
                                case FLOAT16 -> bufs[r].setAtIndex(ValueLayout.JAVA_SHORT, i,
                                        Float.floatToFloat16((float) v / 100));
                                default -> bufs[r].setAtIndex(ValueLayout.JAVA_SHORT, i,
                                        (short) (Float.floatToIntBits((float) v) >>> 16));
                            }
                        }
                        ReduceOp op = switch (variant) {
                            case 0 -> SUM;
                            case 1 -> ReduceOp.AVG;
                            default -> ReduceOp.preMulSum(1.0 + 0.37 * r);
                        };
                        fs.add(comms.get(r).allReduce(Buffer.of(bufs[r]), Buffer.of(bufs[r]), count, type, op));
                    }
                    CommAssertions.awaitAll(fs);
                    for (int r = 1; r < n; r++) {
                        assertThat(bufs[r].mismatch(bufs[0])).as("%s variant %d: first byte rank %d differs from rank 0",
                                type, variant, r).isEqualTo(-1);
                    }
                }
            }
        }
    }

    @Test
    void autoReadsDirectlyAndAForcedAlgorithmKeepsItsPlan() {
        assertThat(allReduceAlgorithms(local(3, CommConfig.builder().build()))).containsOnly("direct");
        assertThat(allReduceAlgorithms(local(2, CommConfig.builder().build()))).containsOnly("direct");
        assertThat(allReduceAlgorithms(local(3, CommConfig.builder().algorithm(Algorithm.RING).build())))
                .containsOnly("ring");
        assertThat(allReduceAlgorithms(local(3, CommConfig.builder().algorithm(Algorithm.RECURSIVE_DOUBLING)
                .build()))).containsOnly("recursive_doubling");
    }

    @Test
    void ranksConnectedOverTcpRunPlans() {
        assertThat(allReduceAlgorithms(local(2, CommConfig.builder().transport("tcp").build())))
                .isNotEmpty().doesNotContain("direct");
    }

    @Test
    void childrenOfASplitRunPlansTheirParentReadsDirectly() {
        List<Communicator> parent = local(4, CommConfig.builder().opTimeout(Duration.ofSeconds(60)).build());
        List<Optional<Communicator>> children = CommAssertions.onEveryRank(4,
                r -> parent.get(r).split(r % 2, r));
        List<Communicator> even = new ArrayList<>();
        List<Communicator> odd = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            (r % 2 == 0 ? even : odd).add(children.get(r).orElseThrow());
        }
        created.add(even);
        created.add(odd);
        assertThat(allReduceAlgorithms(even)).isNotEmpty().doesNotContain("direct");
        assertThat(allReduceAlgorithms(odd)).isNotEmpty().doesNotContain("direct");
        assertThat(allReduceAlgorithms(parent)).containsOnly("direct");
    }

    /** Runs checked all-reduces on every rank (several counts) and returns the algorithms the listeners saw. */
    private static List<String> allReduceAlgorithms(List<Communicator> comms) {
        Queue<String> seen = new ConcurrentLinkedQueue<>();
        io.jccl.metrics.OperationListener listener = (comm, kind, type, algorithm, transport, bytes, ns) -> {
            if (kind == OpKind.ALL_REDUCE) {
                seen.add(algorithm);
            }
        };
        for (Communicator c : comms) {
            OperationListeners.register(c, listener);
        }
        try {
            for (int count : new int[] {1, 1000, 100_000}) {
                assertAllReduceWorks(comms, count);
            }
        } finally {
            for (Communicator c : comms) {
                OperationListeners.unregister(c, listener);
            }
        }
        assertThat(seen).hasSize(3 * comms.size());
        return List.copyOf(seen);
    }

    @Test
    void allReducesInAGroupEachReadDirectly() {
        int n = 3;
        List<Communicator> comms = local(n, CommConfig.builder().opTimeout(Duration.ofSeconds(60)).build());
        Queue<String> seen = new ConcurrentLinkedQueue<>();
        for (Communicator c : comms) {
            OperationListeners.register(c, (comm, kind, type, algorithm, transport, bytes, ns) -> {
                if (kind == OpKind.ALL_REDUCE) {
                    seen.add(algorithm);
                }
            });
        }
        int countA = 1000;
        int countB = 777;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] a = CommAssertions.intsPerRank(arena, n, countA, (r, i) -> r * 100 + i);
            MemorySegment[] sum = CommAssertions.segmentsPerRank(arena, n, 4L * countA);
            MemorySegment[] b = CommAssertions.segmentsPerRank(arena, n, 8L * countB);
            MemorySegment[] bcast = CommAssertions.intsPerRank(arena, n, 4, (r, i) -> i == 0 ? 42 + r : 0);
            List<CollectiveFuture> fs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                for (int i = 0; i < countB; i++) {
                    b[r].setAtIndex(ValueLayout.JAVA_DOUBLE, i, (i + r) % n == 0 ? i + 0.5 : -i);
                }
                int rank = r;
                fs.add(comms.get(r).group(c -> {
                    c.allReduce(Buffer.of(a[rank]), Buffer.of(sum[rank]), countA, DataType.INT32, SUM);
                    c.broadcast(Buffer.of(bcast[rank]), 1, DataType.INT32, 0);
                    c.allReduce(Buffer.of(b[rank]), Buffer.of(b[rank]), countB, DataType.FLOAT64, ReduceOp.MAX);
                }));
            }
            CommAssertions.awaitAll(fs);
            for (int r = 0; r < n; r++) {
                for (int i = 0; i < countA; i++) {
                    assertThat(sum[r].getAtIndex(ValueLayout.JAVA_INT, i)).as("rank %d sum %d", r, i)
                            .isEqualTo(300 + 3 * i);
                }
                for (int i = 0; i < countB; i++) {
                    assertThat(b[r].getAtIndex(ValueLayout.JAVA_DOUBLE, i)).as("rank %d max %d", r, i)
                            .isEqualTo(i + 0.5);
                }
                assertThat(bcast[r].getAtIndex(ValueLayout.JAVA_INT, 0)).isEqualTo(42);
            }
        }
        assertThat(seen).hasSize(2 * n).containsOnly("direct");
    }

    @Test
    void aPeerThatNeverComesIsNamedWhenTheOperationTimesOut() {
        List<Communicator> comms = local(3, CommConfig.builder().opTimeout(Duration.ofMillis(500)).build());
        try (Arena arena = Arena.ofShared()) {
            CollectiveFuture f0 = comms.get(0).allReduce(Buffer.of(arena.allocate(400)),
                    Buffer.of(arena.allocate(400)), 100, FLOAT32, SUM);
            CollectiveFuture f1 = comms.get(1).allReduce(Buffer.of(arena.allocate(400)),
                    Buffer.of(arena.allocate(400)), 100, FLOAT32, SUM);
            JcclException e0 = awaitFailure(f0);
            JcclException e1 = awaitFailure(f1);
            // Whichever rank times out first names rank 2; the other one may learn from its report instead.
            List<JcclException> timeouts = Stream.of(e0, e1).filter(e -> e.code() == ErrorCode.TIMEOUT).toList();
            assertThat(timeouts).as("%s / %s", e0.getMessage(), e1.getMessage()).isNotEmpty();
            for (JcclException e : timeouts) {
                assertThat(e.detail()).contains("allReduce(count=100", "ranks [2] to start the same allReduce");
            }
            assertThat(MismatchTest.awaitAsyncError(comms.get(2)).code()).isIn(ErrorCode.REMOTE_ERROR,
                    ErrorCode.TIMEOUT);
        }
    }

    @Test
    void abortingARankWhosePeerNeverComesFailsTheOthers() throws Exception {
        List<Communicator> comms = local(3, CommConfig.builder().opTimeout(Duration.ofSeconds(60)).build());
        try (Arena arena = Arena.ofShared()) {
            CollectiveFuture f0 = comms.get(0).allReduce(Buffer.of(arena.allocate(4096)),
                    Buffer.of(arena.allocate(4096)), 1024, FLOAT32,
                    SUM);
            CollectiveFuture f1 = comms.get(1).allReduce(Buffer.of(arena.allocate(4096)),
                    Buffer.of(arena.allocate(4096)), 1024, FLOAT32,
                    SUM);
            Thread.sleep(100);   // both published and wait for rank 2, which never calls
            assertThat(f0.isDone()).isFalse();
            comms.get(0).abort();
            awaitFailure(f0, ErrorCode.ABORTED);
            awaitFailure(f1, ErrorCode.REMOTE_ERROR, "rank 0");
            assertThat(MismatchTest.awaitAsyncError(comms.get(2)).detail()).contains("rank 0");
        }
    }

    /**
     * A rank aborted while its peers may be reading its buffers: its buffers are freed (their arena closed) as soon
     * as its operation failed, and no peer may touch them after that — a peer reading a closed arena would fail with
     * INTERNAL_ERROR, a close during a read would throw here. Rounds with 2 to 4 ranks, all-reduces of 1 to 4 Mi
     * floats back to back, and the abort of a random rank at a random moment.
     */
    @Test
    void theBuffersOfAnAbortedRankMayBeFreedAtOnce() throws Exception {
        java.util.Random random = new java.util.Random(3);
        for (int round = 0; round < 30; round++) {
            int n = 2 + random.nextInt(3);
            int victim = random.nextInt(n);
            long count = 1L << (20 + random.nextInt(3));
            int delayMs = random.nextInt(40);
            List<Communicator> comms = local(n, CommConfig.builder().opTimeout(Duration.ofSeconds(60)).build());
            try (Arena peers = Arena.ofShared()) {
                MemorySegment[] bufs = new MemorySegment[n];
                for (int r = 0; r < n; r++) {
                    bufs[r] = r == victim ? null : peers.allocate(4 * count);
                }
                CommAssertions.daemonPool().submit(() -> {
                    Thread.sleep(delayMs);
                    comms.get(victim).abort();
                    return null;
                });
                abortedDuringAllReduces(comms, victim, bufs, count, "round " + round);
            }
        }
    }

    /** All-reduces until the victim's abort fails one; the victim's buffers are freed right after each call. */
    private static void abortedDuringAllReduces(List<Communicator> comms, int victim, MemorySegment[] bufs, long count,
                                                String what) {
        long until = System.nanoTime() + HANG.toNanos();
        while (System.nanoTime() - until < 0) {
            Arena mine = Arena.ofShared();
            CollectiveFuture victimCall;
            try {
                MemorySegment b = mine.allocate(4 * count);
                victimCall = comms.get(victim).allReduce(Buffer.of(b), Buffer.of(b), count, FLOAT32, SUM);
            } catch (JcclException e) {
                mine.close();   // aborted between two calls
                assertThat(e.code()).as(e.getMessage()).isIn(ErrorCode.ABORTED, ErrorCode.INVALID_USAGE);
                return;
            }
            List<CollectiveFuture> others = new ArrayList<>();
            for (int r = 0; r < comms.size(); r++) {
                if (r != victim) {
                    others.add(comms.get(r).allReduce(Buffer.of(bufs[r]), Buffer.of(bufs[r]), count, FLOAT32, SUM));
                }
            }
            Optional<JcclException> failed = outcome(victimCall);
            mine.close();   // at once, whatever the peers do
            failed.ifPresent(e -> assertThat(e.code()).as("%s: %s", what, e.getMessage()).isEqualTo(ErrorCode.ABORTED));
            // A peer's call completes (the data movement finished before the abort) or fails because of it.
            boolean peerFailed = false;
            for (CollectiveFuture f : others) {
                Optional<JcclException> e = outcome(f);
                if (e.isPresent()) {
                    peerFailed = true;
                    assertThat(e.get().code()).as("%s: %s", what, e.get().getMessage()).isEqualTo(ErrorCode.REMOTE_ERROR);
                    assertThat(e.get().detail()).contains("rank " + victim);
                }
            }
            if (failed.isPresent() || peerFailed) {
                return;
            }
        }
        fail(what + ": rank " + victim + " was never aborted");
    }

    private static Optional<JcclException> outcome(CollectiveFuture f) {
        try {
            awaitSuccess(f);
            return Optional.empty();
        } catch (JcclException e) {
            return Optional.of(e);
        }
    }
}
