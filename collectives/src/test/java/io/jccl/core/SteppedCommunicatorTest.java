package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.check.CollectiveCheck;
import io.jccl.plan.OpKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The real communicator engine of N ranks, stepped from one thread on virtual time ({@link SteppedCluster}): exact
 * results for every collective, operation timeouts after exactly the configured virtual time with thread mode's
 * message, a crashed rank detected by its silence, clean closes, and runs that replay exactly from their seed.
 * Virtual time only: nothing here depends on how fast the machine is.
 */
class SteppedCommunicatorTest {
    private static final long MS = 1_000_000;
    /** Far more virtual time than any scenario needs: reaching it means a hang. */
    private static final long HANG_NS = 600_000 * MS;

    /** One issued operation of a rank, for checks and for the completion trace. */
    private record Issued(int rank, String what, CollectiveFuture future, CollectiveCheck check, MemorySegment recv) {
    }

    private static CommConfig.Builder base() {
        return CommConfig.builder().chunkSizeBytes(4096);
    }

    // ---- (a) every collective, exact results ----

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4, 5})
    void everyCollectiveGivesExactResults(int n) {
        long seed = 1000 + n;
        try (Arena arena = Arena.ofConfined(); SteppedCluster cluster = new SteppedCluster(n, base().build(), seed)) {
            List<Issued> issued = issueEveryKind(cluster, arena, seed);
            cluster.runUntil(() -> allDone(issued), HANG_NS, "every collective, n=" + n + " seed=" + seed);
            for (Issued i : issued) {
                assertThat(i.future.error()).as("rank %d: %s", i.rank, i.what).isEmpty();
                if (i.check != null && i.check.recvElements(i.rank) > 0) {
                    assertThat(i.check.firstMismatch(i.rank, i.recv)).as("rank %d: %s", i.rank, i.what).isNull();
                }
            }
            closeAll(cluster);
        }
    }

    /**
     * Issues, on every rank and all at once (they queue), every collective kind, a ring of send/recv in a group, a
     * group mixing a collective with point-to-point operations, and a barrier.
     */
    private static List<Issued> issueEveryKind(SteppedCluster cluster, Arena arena, long seed) {
        int n = cluster.size();
        List<Issued> issued = new ArrayList<>();
        Object[][] cases = {
                {OpKind.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, 3000L},
                {OpKind.ALL_REDUCE, DataType.INT32, ReduceOp.Kind.MAX, 17L},
                {OpKind.ALL_REDUCE, DataType.BFLOAT16, ReduceOp.Kind.AVG, 5000L},
                {OpKind.BROADCAST, DataType.FLOAT64, null, 1500L},
                {OpKind.REDUCE, DataType.INT64, ReduceOp.Kind.SUM, 1200L},
                {OpKind.ALL_GATHER, DataType.INT8, null, 2000L},
                {OpKind.REDUCE_SCATTER, DataType.FLOAT16, ReduceOp.Kind.PRE_MUL_SUM, 1000L},
                {OpKind.ALL_TO_ALL, DataType.UINT8, null, 700L},
                {OpKind.ALL_TO_ALLV, DataType.FLOAT32, null, 300L},
                {OpKind.GATHER, DataType.INT32, null, 900L},
                {OpKind.SCATTER, DataType.FLOAT64, null, 800L},
                {OpKind.P2P, DataType.FLOAT32, null, 2500L},
        };
        for (int k = 0; k < cases.length; k++) {
            OpKind kind = (OpKind) cases[k][0];
            DataType type = (DataType) cases[k][1];
            ReduceOp.Kind op = (ReduceOp.Kind) cases[k][2];
            long count = (Long) cases[k][3];
            int root = (int) Math.floorMod(seed + k, n);
            CollectiveCheck check = new CollectiveCheck(kind, type, op, n, count, root, seed + k);
            for (int r = 0; r < n; r++) {
                MemorySegment send = arena.allocate(Math.max(1, check.sendElements(r) * type.sizeBytes()));
                MemorySegment recv = arena.allocate(Math.max(1, check.recvElements(r) * type.sizeBytes()));
                check.fillSend(r, send);
                Communicator c = cluster.ranks[r].communicator();
                CollectiveFuture f = issue(c, kind, check, type, count, root, send, recv, r, n);
                issued.add(new Issued(r, kind + " " + type + " count=" + count, f, check, recv));
            }
        }
        // A group of a collective and point-to-point operations: the collective runs first, then one p2p plan.
        CollectiveCheck sum = new CollectiveCheck(OpKind.ALL_REDUCE, DataType.INT32, ReduceOp.Kind.SUM, n, 999, 0,
                seed);
        CollectiveCheck ring = new CollectiveCheck(OpKind.P2P, DataType.INT64, null, n, 333, 0, seed);
        for (int r = 0; r < n; r++) {
            int rank = r;
            MemorySegment sumSend = arena.allocate(999 * 4);
            MemorySegment sumRecv = arena.allocate(999 * 4);
            MemorySegment ringSend = arena.allocate(333 * 8);
            MemorySegment ringRecv = arena.allocate(333 * 8);
            sum.fillSend(r, sumSend);
            ring.fillSend(r, ringSend);
            Communicator c = cluster.ranks[r].communicator();
            List<CollectiveFuture> members = new ArrayList<>();
            CollectiveFuture group = c.group(g -> {
                members.add(g.allReduce(Buffer.of(sumSend), Buffer.of(sumRecv), 999, DataType.INT32, ReduceOp.SUM));
                members.add(g.send(Buffer.of(ringSend), 333, DataType.INT64, (rank + 1) % n));
                members.add(g.recv(Buffer.of(ringRecv), 333, DataType.INT64, (rank - 1 + n) % n));
            });
            issued.add(new Issued(r, "group: allReduce member", members.get(0), sum, sumRecv));
            issued.add(new Issued(r, "group: send member", members.get(1), null, null));
            issued.add(new Issued(r, "group: recv member", members.get(2), ring, ringRecv));
            issued.add(new Issued(r, "group", group, null, null));
            issued.add(new Issued(r, "barrier", c.barrier(), null, null));
        }
        return issued;
    }

    private static CollectiveFuture issue(Communicator c, OpKind kind, CollectiveCheck check, DataType type,
                                          long count, int root, MemorySegment send, MemorySegment recv, int r, int n) {
        return switch (kind) {
            case ALL_REDUCE -> c.allReduce(Buffer.of(send), Buffer.of(recv), count, type, check.opFor(r));
            case BROADCAST -> c.broadcast(Buffer.of(send), Buffer.of(recv), count, type, root);
            case REDUCE -> c.reduce(Buffer.of(send), Buffer.of(recv), count, type, check.opFor(r), root);
            case ALL_GATHER -> c.allGather(Buffer.of(send), Buffer.of(recv), count, type);
            case REDUCE_SCATTER -> c.reduceScatter(Buffer.of(send), Buffer.of(recv), count, type, check.opFor(r));
            case ALL_TO_ALL -> c.allToAll(Buffer.of(send), Buffer.of(recv), count, type);
            case ALL_TO_ALLV -> c.allToAllv(Buffer.of(send), check.sendCounts(r), check.sendDispls(r), Buffer.of(recv),
                    check.recvCounts(r), check.recvDispls(r), type);
            case GATHER -> c.gather(Buffer.of(send), Buffer.of(recv), count, type, root);
            case SCATTER -> c.scatter(Buffer.of(send), Buffer.of(recv), count, type, root);
            case P2P -> c.group(g -> {
                g.send(Buffer.of(send), count, type, (r + 1) % n);
                g.recv(Buffer.of(recv), count, type, (r - 1 + n) % n);
            });
            default -> throw new IllegalArgumentException(kind.toString());
        };
    }

    // ---- (b) operation timeout ----

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void operationOneRankNeverIssuesTimesOutAfterExactlyTheOpTimeout(int n) {
        Duration opTimeout = Duration.ofMillis(200);
        CommConfig config = base().opTimeout(opTimeout).algorithm(Algorithm.RING).build();
        try (Arena arena = Arena.ofConfined(); SteppedCluster cluster = new SteppedCluster(n, config, 7 + n)) {
            int absent = n - 1;
            long issuedAtNs = cluster.nowNs();
            CollectiveFuture[] f = new CollectiveFuture[n];
            long[] failedAtNs = new long[n];
            for (int r = 0; r < absent; r++) {
                f[r] = cluster.ranks[r].communicator().allReduce(Buffer.of(arena.allocate(400)),
                        Buffer.of(arena.allocate(400)), 100,
                        DataType.FLOAT32, ReduceOp.SUM);
            }
            cluster.runUntil(() -> {
                for (int r = 0; r < absent; r++) {
                    if (!f[r].isDone()) {
                        return false;
                    }
                }
                return true;
            }, HANG_NS, () -> noteCompletions(f, failedAtNs, cluster.lastRoundNs()), "timeout n=" + n);
            String expected = "on rank %d did not complete within 200 ms; still waiting for ";
            int timedOut = 0;
            for (int r = 0; r < absent; r++) {
                assertThat(failedAtNs[r] - issuedAtNs).as("rank %d failed after the op timeout", r)
                        .isEqualTo(opTimeout.toNanos());
                JcclException e = f[r].error().orElseThrow();
                if (e.code() == ErrorCode.TIMEOUT) {
                    timedOut++;
                    assertThat(e.detail()).startsWith("allReduce(count=100, FLOAT32").contains(expected.formatted(r));
                } else {
                    // The first to time out told the others, which fail with its report at the same moment.
                    assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.REMOTE_ERROR);
                    assertThat(e.detail()).contains("failed: TIMEOUT: ").contains("did not complete within 200 ms");
                }
            }
            assertThat(timedOut).isGreaterThanOrEqualTo(1);
            // The rank that never issued learns from the report.
            cluster.runUntil(() -> cluster.ranks[absent].communicator().asyncError().isPresent(), HANG_NS,
                    "the absent rank learns");
            JcclException learned = cluster.ranks[absent].communicator().asyncError().orElseThrow();
            assertThat(learned.code()).isEqualTo(ErrorCode.REMOTE_ERROR);
            assertThat(learned.detail()).contains("TIMEOUT");
            closeAll(cluster);
        }
    }

    /** The stepped executor's timeout message is thread mode's, word for word. */
    @Test
    void timeoutMessageIsThreadModes() {
        CommConfig config = base().opTimeout(Duration.ofMillis(200)).algorithm(Algorithm.RING).build();
        String stepped;
        try (Arena arena = Arena.ofConfined(); SteppedCluster cluster = new SteppedCluster(2, config, 3)) {
            CollectiveFuture f = cluster.ranks[0].communicator().allReduce(Buffer.of(arena.allocate(400)),
                    Buffer.of(arena.allocate(400)),
                    100, DataType.FLOAT32, ReduceOp.SUM);
            cluster.runUntil(f::isDone, HANG_NS, "stepped timeout");
            stepped = f.error().orElseThrow().detail();
            closeAll(cluster);
        }
        List<Communicator> comms = Communicator.local(2, config);
        try (Arena arena = Arena.ofShared()) {
            CollectiveFuture f = comms.get(0).allReduce(Buffer.of(arena.allocate(400)), Buffer.of(arena.allocate(400)),
                    100,
                    DataType.FLOAT32, ReduceOp.SUM);
            // A generous bound that only turns a hang into a failure.
            JcclException e = catchThrowableOfType(JcclException.class, () -> f.await(Duration.ofMinutes(2)));
            assertThat(e).as("the threaded all-reduce failed").isNotNull();
            assertThat(e.code()).isEqualTo(ErrorCode.TIMEOUT);
            assertThat(stepped).isEqualTo(e.detail());
        } finally {
            comms.forEach(Communicator::abort);
        }
    }

    // ---- (c) a crashed rank ----

    /** A crashed rank that stays silent: its peers notice after the peer timeout (heartbeats). */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4, 5})
    void crashedRankFailsEverySurvivorsPendingOperation(int n) {
        crash(n, false);
    }

    /** A crashed rank whose connections then close (as a killed process's kernel closes its sockets): at once. */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void crashedRankWhoseConnectionsCloseFailsTheSurvivorsAtOnce(int n) {
        crash(n, true);
    }

    private static void crash(int n, boolean closeConnections) {
        for (int roundsBeforeCrash : new int[] {0, 3}) {
            long seed = 31L * n + roundsBeforeCrash + (closeConnections ? 7 : 0);
            Duration peerTimeout = Duration.ofMillis(1000);
            CommConfig config = base().peerTimeout(peerTimeout).opTimeout(Duration.ZERO).build();
            try (Arena arena = Arena.ofConfined(); SteppedCluster cluster = new SteppedCluster(n, config, seed)) {
                int victim = new SplittableRandom(seed).nextInt(n);
                CollectiveFuture[] f = new CollectiveFuture[n];
                for (int r = 0; r < n; r++) {
                    f[r] = cluster.ranks[r].communicator().allReduce(Buffer.of(arena.allocate(40_000)),
                            Buffer.of(arena.allocate(40_000)),
                            10_000, DataType.FLOAT32, ReduceOp.SUM);
                }
                for (int i = 0; i < roundsBeforeCrash; i++) {
                    cluster.round();
                }
                cluster.crash(victim);
                if (closeConnections) {
                    cluster.closeConnectionsOf(victim);
                }
                long crashedAtNs = cluster.nowNs();
                long[] failedAtNs = new long[n];
                String what = "crash of rank " + victim + " of " + n + " after " + roundsBeforeCrash + " rounds"
                        + (closeConnections ? ", its connections closed" : "") + ", seed " + seed;
                cluster.runUntil(() -> survivorsDone(f, victim), HANG_NS,
                        () -> noteCompletions(f, failedAtNs, cluster.lastRoundNs()), what);
                // Silent: heard last at most a heartbeat interval before the crash; then the timeout, the wait for
                // an explanation, and the reports' moment to leave. Closed connections: only the wait and the linger.
                long earliestNs = closeConnections ? 0 : peerTimeout.toNanos() * 4 / 5;
                long latestNs = (closeConnections ? 0 : peerTimeout.toNanos() * 6 / 5)
                        + CommExecutor.EXPLANATION_WAIT_NS + 60 * MS;
                for (int r = 0; r < n; r++) {
                    if (r == victim) {
                        assertThat(f[r].isDone()).isFalse();
                        continue;
                    }
                    JcclException e = f[r].error().orElseThrow(() -> new AssertionError(what + ": completed"));
                    assertThat(e.code()).as("%s: rank %d: %s", what, r, e.getMessage())
                            .isEqualTo(ErrorCode.REMOTE_ERROR);
                    assertThat(e.detail()).contains("rank " + victim);
                    assertThat(failedAtNs[r] - crashedAtNs).as("%s: rank %d failed in time", what, r)
                            .isGreaterThanOrEqualTo(earliestNs).isLessThanOrEqualTo(latestNs);
                }
                // The survivors still close cleanly.
                for (int r = 0; r < n; r++) {
                    if (r != victim) {
                        cluster.ranks[r].communicator().close();
                    }
                }
                cluster.runUntil(cluster::allTerminated, HANG_NS, what + ": closing the survivors");
            }
        }
    }

    private static boolean survivorsDone(CollectiveFuture[] f, int victim) {
        for (int r = 0; r < f.length; r++) {
            if (r != victim && !f[r].isDone()) {
                return false;
            }
        }
        return true;
    }

    // ---- (d) close ----

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void closeTerminatesEveryRankAndPeersTakeTheGoodbyeForADeparture(int n) {
        Duration peerTimeout = Duration.ofMillis(500);
        CommConfig config = base().peerTimeout(peerTimeout).build();
        try (Arena arena = Arena.ofConfined(); SteppedCluster cluster = new SteppedCluster(n, config, 11 + n)) {
            CollectiveFuture[] f = new CollectiveFuture[n];
            for (int r = 0; r < n; r++) {
                f[r] = cluster.ranks[r].communicator().allReduce(Buffer.of(arena.allocate(4000)),
                        Buffer.of(arena.allocate(4000)), 1000,
                        DataType.FLOAT32, ReduceOp.SUM);
            }
            cluster.runUntil(() -> survivorsDone(f, -1), HANG_NS, "all-reduce before closing");
            // Rank 0 leaves first; the others go on for several peer timeouts: neither its closed connections nor
            // its silence may count as a death, since it said goodbye.
            Communicator first = cluster.ranks[0].communicator();
            first.close();
            cluster.runUntil(cluster.ranks[0]::isTerminated, HANG_NS, "rank 0 closing");
            cluster.runFor(4 * peerTimeout.toNanos(), () -> { });
            for (int r = 0; r < n; r++) {
                assertThat(cluster.ranks[r].communicator().asyncError()).as("rank %d", r).isEmpty();
            }
            assertThatThrownBy(() -> first.barrier()).isInstanceOf(JcclException.class)
                    .hasMessageContaining("closed");
            closeAll(cluster);
            for (int r = 0; r < n; r++) {
                assertThat(cluster.ranks[r].communicator().asyncError()).as("rank %d", r).isEmpty();
            }
        }
    }

    @Test
    void abortFailsThePendingOperationAndTellsThePeers() {
        try (Arena arena = Arena.ofConfined(); SteppedCluster cluster = new SteppedCluster(3, base().build(), 5)) {
            CollectiveFuture[] f = new CollectiveFuture[3];
            for (int r = 0; r < 2; r++) {
                f[r] = cluster.ranks[r].communicator().allReduce(Buffer.of(arena.allocate(400)),
                        Buffer.of(arena.allocate(400)), 100,
                        DataType.FLOAT32, ReduceOp.SUM);
            }
            cluster.round();
            cluster.ranks[0].communicator().abort();
            cluster.runUntil(() -> f[0].isDone() && f[1].isDone() && cluster.ranks[0].isTerminated()
                    && cluster.ranks[2].communicator().asyncError().isPresent(), HANG_NS, "abort");
            assertThat(f[0].error().orElseThrow().code()).isEqualTo(ErrorCode.ABORTED);
            assertThat(f[1].error().orElseThrow().code()).isEqualTo(ErrorCode.REMOTE_ERROR);
            assertThat(f[1].error().orElseThrow().detail()).contains("rank 0");
            assertThat(cluster.ranks[2].communicator().asyncError().orElseThrow().detail()).contains("aborted");
            closeAll(cluster);
        }
    }

    /** Nothing may block the stepping thread: blocking waits, split and shrink are refused. */
    @Test
    void blockingCallsAreRefused() {
        try (Arena arena = Arena.ofConfined(); SteppedCluster cluster = new SteppedCluster(2, base().build(), 9)) {
            Communicator c = cluster.ranks[0].communicator();
            CollectiveFuture f = c.allReduce(Buffer.of(arena.allocate(4)), Buffer.of(arena.allocate(4)), 1,
                    DataType.FLOAT32,
                    ReduceOp.SUM);
            assertThatThrownBy(f::await).isInstanceOf(JcclException.class).hasMessageContaining("isDone()");
            assertThatThrownBy(() -> f.await(Duration.ofSeconds(1))).isInstanceOf(JcclException.class);
            assertThatThrownBy(f::get).isInstanceOf(JcclException.class);
            assertThatThrownBy(c::synchronize).isInstanceOf(JcclException.class)
                    .hasMessageContaining("stepped (simulation) executor");
            assertThatThrownBy(() -> c.split(0, 0)).isInstanceOf(JcclException.class)
                    .hasMessageContaining(CommExecutor.SPLIT_NOT_STEPPED)
                    .satisfies(e -> assertThat(((JcclException) e).code()).isEqualTo(ErrorCode.INVALID_USAGE));
            assertThatThrownBy(() -> c.shrink(1)).isInstanceOf(JcclException.class)
                    .hasMessageContaining("stepped (simulation) executor");
            CollectiveFuture other = cluster.ranks[1].communicator().allReduce(Buffer.of(arena.allocate(4)),
                    Buffer.of(arena.allocate(4)), 1, DataType.FLOAT32, ReduceOp.SUM);
            cluster.runUntil(() -> f.isDone() && other.isDone(), HANG_NS, "all-reduce");
            assertThat(f.error()).isEmpty();
            closeAll(cluster);
        }
    }

    // ---- (e) determinism ----

    @Test
    void sameSeedReplaysTheSameCompletionTimes() {
        List<String> first = tracedRun(4, 77);
        List<String> second = tracedRun(4, 77);
        assertThat(first).hasSizeGreaterThan(4 * 12);
        assertThat(second).isEqualTo(first);
    }

    /**
     * Every collective, then an operation rank 3 never joins (timeout), then the close: each completion as
     * "rank, what, virtual time, outcome".
     */
    private static List<String> tracedRun(int n, long seed) {
        List<String> trace = new ArrayList<>();
        CommConfig config = base().opTimeout(Duration.ofMillis(300)).build();
        try (Arena arena = Arena.ofConfined(); SteppedCluster cluster = new SteppedCluster(n, config, seed)) {
            List<Issued> issued = new ArrayList<>(issueEveryKind(cluster, arena, seed));
            for (int r = 0; r < n - 1; r++) {
                issued.add(new Issued(r, "unmatched allReduce", cluster.ranks[r].communicator().allReduce(
                        Buffer.of(arena.allocate(400)), Buffer.of(arena.allocate(400)), 100, DataType.FLOAT32,
                                ReduceOp.SUM), null, null));
            }
            boolean[] seen = new boolean[issued.size()];
            Runnable note = () -> {
                for (int i = 0; i < issued.size(); i++) {
                    Issued x = issued.get(i);
                    if (!seen[i] && x.future.isDone()) {
                        seen[i] = true;
                        long atNs = cluster.lastRoundNs() - SteppedCluster.START_NS;
                        trace.add("rank " + x.rank + " " + x.what + " at " + atNs + " ns: "
                                + x.future.error().map(JcclException::getMessage).orElse("ok"));
                    }
                }
            };
            cluster.runUntil(() -> allDone(issued), HANG_NS, note, "traced run seed=" + seed);
            for (SteppedCommunicator c : cluster.ranks) {
                c.communicator().close();
            }
            cluster.runUntil(cluster::allTerminated, HANG_NS, "closing");
            trace.add("terminated at " + (cluster.nowNs() - SteppedCluster.START_NS) + " ns");
        }
        return trace;
    }

    // ---- helpers ----

    private static boolean allDone(List<Issued> issued) {
        for (Issued i : issued) {
            if (!i.future.isDone()) {
                return false;
            }
        }
        return true;
    }

    private static void noteCompletions(CollectiveFuture[] f, long[] doneAtNs, long nowNs) {
        for (int r = 0; r < f.length; r++) {
            if (f[r] != null && doneAtNs[r] == 0 && f[r].isDone()) {
                doneAtNs[r] = nowNs;
            }
        }
    }

    /** Closes every rank and steps until all terminated: no hang, whatever state they are in. */
    private static void closeAll(SteppedCluster cluster) {
        for (SteppedCommunicator c : cluster.ranks) {
            c.communicator().close();
        }
        cluster.runUntil(cluster::allTerminated, HANG_NS, "closing every rank");
    }

    @Test
    void createChecksTheLinks() {
        SteppedCommunicator.Links none = new SteppedCommunicator.Links(new io.jccl.net.SendConnection[2],
                new io.jccl.net.RecvConnection[2], new io.jccl.net.SendConnection[2],
                new io.jccl.net.RecvConnection[2], new io.jccl.net.local.LocalTransport().properties());
        assertThatThrownBy(() -> SteppedCommunicator.create(0, 2, CommConfig.DEFAULT, new SteppedCluster.VirtualClock(),
                none, "x")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dataSend[1]");
    }
}
