package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algo.Algorithms;
import io.jccl.check.CollectiveCheck;
import io.jccl.plan.Fingerprint;
import io.jccl.plan.OpKind;
import io.jccl.plan.OpShape;
import io.jccl.plan.Plan;
import io.jccl.prims.PlanBuilder;
import io.jccl.prims.Prims;
import io.jccl.reduce.Reducer;
import io.jccl.reduce.Reducers;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.fail;

/**
 * The real {@link PlanRunner}, plans and kernels of every rank, driven from one thread over {@link SimFabric}:
 * which rank advances and which message is delivered next are drawn from a seeded generator, and connections
 * take only 1–4 requests in flight. Every run must finish (a state where no rank can advance and no message can
 * be delivered is a deadlock) with exact results. The seed is in each test's name and failure message; the same
 * seed replays the same interleaving.
 */
class DeterministicPlanTest {
    private record Case(OpKind kind, Algorithm algorithm, DataType type, ReduceOp.Kind op) {
    }

    private static final int[] RANKS = {1, 2, 3, 4, 5, 7, 8};
    private static final long[] COUNTS = {0, 1, 13, 100, 1000};
    private static final long[] CHUNKS = {7, 64};
    private static final int SEEDS = 2;

    @TestFactory
    Stream<DynamicTest> everyAlgorithmUnderRandomInterleavings() {
        List<Case> cases = reducingCases();
        for (OpKind k : new OpKind[] {OpKind.BROADCAST, OpKind.ALL_GATHER, OpKind.ALL_TO_ALL, OpKind.ALL_TO_ALLV,
                OpKind.GATHER, OpKind.SCATTER, OpKind.P2P}) {
            cases.add(new Case(k, Algorithm.AUTO, DataType.FLOAT64, null));
            cases.add(new Case(k, Algorithm.AUTO, DataType.INT8, null));
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (Case c : cases) {
            for (int n : RANKS) {
                for (long count : COUNTS) {
                    for (long chunk : CHUNKS) {
                        for (int s = 0; s < SEEDS; s++) {
                            long seed = java.util.Objects.hash(c, n, count, chunk, s);
                            String name = c.kind + " " + c.algorithm + " " + c.type + (c.op == null ? "" : " " + c.op)
                                    + " n=" + n + " count=" + count + " chunk=" + chunk + " seed=" + seed;
                            tests.add(DynamicTest.dynamicTest(name, () -> run(c, n, count, chunk, seed, name)));
                        }
                    }
                }
            }
        }
        return tests.stream();
    }

    /**
     * The same plans over receiver-driven connections, as metaroce's: each lane posts its next receive while the
     * current step runs (the pipelined rendezvous), and reducing receives go to sinks that take the data in pieces in
     * random order. The results stay exact, in place too, whatever the interleaving: a receive posted ahead never
     * lands in memory a step before it still reads or writes.
     */
    @TestFactory
    Stream<DynamicTest> everyAlgorithmWithReceivesPostedAhead() {
        List<Case> cases = reducingCases();
        for (OpKind k : new OpKind[] {OpKind.BROADCAST, OpKind.ALL_GATHER, OpKind.ALL_TO_ALL, OpKind.GATHER,
                OpKind.SCATTER, OpKind.P2P}) {
            cases.add(new Case(k, Algorithm.AUTO, DataType.FLOAT64, null));
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (Case c : cases) {
            for (boolean inPlace : c.kind == OpKind.ALL_REDUCE ? new boolean[] {false, true} : new boolean[] {false}) {
                for (int n : new int[] {2, 3, 4, 5}) {
                    for (long count : new long[] {1, 100, 1000}) {
                        for (long chunk : CHUNKS) {
                            long seed = java.util.Objects.hash(c, n, count, chunk, inPlace, "ahead");
                            String name = c.kind + " " + c.algorithm + " " + c.type + (c.op == null ? "" : " " + c.op)
                                    + (inPlace ? " in place" : "") + " n=" + n + " count=" + count + " chunk=" + chunk
                                    + " seed=" + seed;
                            tests.add(DynamicTest.dynamicTest(name,
                                    () -> run(c, n, count, chunk, seed, name, false, inPlace, true)));
                        }
                    }
                }
            }
        }
        return tests.stream();
    }

    /**
     * The ring of 2 ranks receives ahead at every step after the first, out of place; in place only where no send in
     * flight still reads the block the receive would write.
     */
    @org.junit.jupiter.api.Test
    void aRingPostsItsReceivesAheadWhereTheConnectionsAskForIt() {
        Case c = new Case(OpKind.ALL_REDUCE, Algorithm.RING, DataType.FLOAT32, ReduceOp.Kind.SUM);
        for (boolean inPlace : new boolean[] {false, true}) {
            // 1000 elements in chunks of 64: 8 loops of 2 blocks, each loop 2 receives per rank.
            long ahead = run(c, 2, 1000, 64, 7, "ring ahead, in place " + inPlace, false, inPlace, true).postedAhead();
            org.assertj.core.api.Assertions.assertThat(ahead).as("receives posted ahead, in place %s", inPlace)
                    .isPositive();
            long none = run(c, 2, 1000, 64, 7, "ring, in place " + inPlace, false, inPlace, false).postedAhead();
            org.assertj.core.api.Assertions.assertThat(none).as("without receiver-driven connections").isZero();
        }
    }

    /**
     * A receive is not posted ahead into memory the step before it still writes. Three ranks: rank 0 receives rank
     * 1's block into its result and forwards it to rank 2, then receives rank 2's block into the same place. Rank 2
     * sends without waiting for anything, so a receive posted ahead for it could take rank 2's block first, and rank
     * 1's would overwrite it, or the forward would carry rank 2's own data back: every seed must end with rank 0
     * holding rank 2's block and rank 2 holding rank 1's.
     */
    @org.junit.jupiter.api.Test
    void noReceiveIsPostedAheadIntoMemoryAnEarlierStepStillWrites() {
        int n = 3;
        long count = 64;
        int es = 4;
        for (long seed = 0; seed < 200; seed++) {
            SimFabric fabric = new SimFabric(n, seed, true);
            SplittableRandom random = new SplittableRandom(~seed);
            PlanRunner[] runners = new PlanRunner[n];
            MemorySegment[] recv = new MemorySegment[n];
            try (Arena arena = Arena.ofShared()) {
                for (int r = 0; r < n; r++) {
                    PeerLinks links = linksOf(fabric, r);
                    MemorySegment send = arena.allocate(count * es);
                    send.fill((byte) (r + 1));
                    recv[r] = arena.allocate(count * es);
                    PlanBuilder b = new PlanBuilder(r, n, es, count);
                    switch (r) {
                        case 0 -> {
                            b.recvCopySend(1, io.jccl.plan.Buf.RECV, 0, count, 2, Prims.NO_PEER);
                            b.recv(2, io.jccl.plan.Buf.RECV, 0, count);
                        }
                        case 1 -> b.send(0, io.jccl.plan.Buf.SEND, 0, count);
                        default -> {
                            b.send(0, io.jccl.plan.Buf.SEND, 0, count);
                            b.recv(0, io.jccl.plan.Buf.RECV, 0, count);
                        }
                    }
                    runners[r] = new PlanRunner(r, links, new StagingPool(count * es), null);
                    OpRequest req = OpRequest.p2p(true, send, count, DataType.FLOAT32, 0, new OpFuture(null));
                    runners[r].start(b.build("hazard"), new MemorySegment[] {send}, new MemorySegment[] {recv[r]},
                            new long[] {1}, new int[] {es}, new Reducer[] {null}, new OpRequest[] {req});
                }
                drive(runners, fabric, random, "hazard plan, seed " + seed);
                for (long i = 0; i < count * es; i++) {
                    if (recv[0].get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != 3
                            || recv[2].get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != 2) {
                        fail("seed " + seed + ": byte " + i + " of rank 0's result is "
                                + recv[0].get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) + " (want 3), of rank 2's "
                                + recv[2].get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) + " (want 2)");
                    }
                }
            }
        }
    }

    /** Every all-reduce algorithm, reduce and reduce-scatter, each with five types and reductions. */
    private static List<Case> reducingCases() {
        List<Case> cases = new ArrayList<>();
        for (Algorithm a : new Algorithm[] {Algorithm.RING, Algorithm.TREE, Algorithm.RECURSIVE_DOUBLING}) {
            reducing(cases, OpKind.ALL_REDUCE, a);
        }
        reducing(cases, OpKind.REDUCE, Algorithm.AUTO);
        reducing(cases, OpKind.REDUCE_SCATTER, Algorithm.AUTO);
        return cases;
    }

    private static void reducing(List<Case> cases, OpKind kind, Algorithm a) {
        cases.add(new Case(kind, a, DataType.FLOAT32, ReduceOp.Kind.SUM));
        cases.add(new Case(kind, a, DataType.INT32, ReduceOp.Kind.MAX));
        cases.add(new Case(kind, a, DataType.FLOAT16, ReduceOp.Kind.AVG));
        cases.add(new Case(kind, a, DataType.BFLOAT16, ReduceOp.Kind.PRE_MUL_SUM));
        cases.add(new Case(kind, a, DataType.UINT8, ReduceOp.Kind.PROD));
    }

    /**
     * The runner posts the sends of an operation the executor marked for single copy with {@code isendSingleCopy},
     * all of them, and no other operation's; the results stay exact either way.
     */
    @org.junit.jupiter.api.Test
    void operationsMarkedForSingleCopyPostEverySendSingleCopy() {
        Case c = new Case(OpKind.ALL_REDUCE, Algorithm.RECURSIVE_DOUBLING, DataType.FLOAT32, ReduceOp.Kind.SUM);
        for (boolean marked : new boolean[] {true, false}) {
            SimFabric fabric = run(c, 2, 1000, 64, 42, "single copy " + marked, marked, false, false).fabric();
            int[] counts = fabric.sendCounts(0, 1);
            org.assertj.core.api.Assertions.assertThat(counts[1]).isPositive();
            org.assertj.core.api.Assertions.assertThat(counts[0]).as("single-copy sends, marked %s", marked)
                    .isEqualTo(marked ? counts[1] : 0);
        }
    }

    private static void run(Case c, int n, long count, long chunkElements, long seed, String name) {
        run(c, n, count, chunkElements, seed, name, false, false, false);
    }

    /** What a run left: its fabric, and how many receives its runners posted ahead. */
    private record Outcome(SimFabric fabric, long postedAhead) {
    }

    private static Outcome run(Case c, int n, long count, long chunkElements, long seed, String name,
                               boolean singleCopySends, boolean inPlace, boolean receiverDriven) {
        SimFabric fabric = new SimFabric(n, seed, receiverDriven);
        SplittableRandom random = new SplittableRandom(~seed);
        int root = (int) Math.floorMod(seed, n);
        CollectiveCheck check = new CollectiveCheck(c.kind, c.type, c.op, n, count, root, seed);
        int es = c.type.sizeBytes();
        PlanRunner[] runners = new PlanRunner[n];
        MemorySegment[] recv = new MemorySegment[n];
        try (Arena arena = Arena.ofShared()) {
            for (int r = 0; r < n; r++) {
                PeerLinks links = linksOf(fabric, r);
                StagingPool staging = new StagingPool(chunkElements * es);
                runners[r] = new PlanRunner(r, links, staging, null);
                MemorySegment send = arena.allocate(Math.max(1, check.sendElements(r) * es));
                recv[r] = inPlace ? send : arena.allocate(Math.max(1, check.recvElements(r) * es));
                check.fillSend(r, send);
                start(runners[r], c, check, r, n, count, root, chunkElements, send, recv[r], inPlace,
                        singleCopySends);
            }
            drive(runners, fabric, random, name);
            for (int r = 0; r < n; r++) {
                String mismatch = check.firstMismatch(r, recv[r]);
                if (mismatch != null) {
                    fail(name + ": " + mismatch);
                }
            }
        }
        long ahead = 0;
        for (PlanRunner runner : runners) {
            ahead += runner.receivesPostedAhead();
        }
        return new Outcome(fabric, ahead);
    }

    /** @return rank {@code r}'s connections to every other rank of the fabric */
    private static PeerLinks linksOf(SimFabric fabric, int r) {
        int n = fabric.size();
        PeerLinks links = new PeerLinks(n, List.of());
        for (int p = 0; p < n; p++) {
            if (p != r) {
                links.dataSend[p] = fabric.sendEnd(r, p);
                links.dataRecv[p] = fabric.recvEnd(p, r);
            }
        }
        return links;
    }

    /**
     * Runs every rank's plan to its end: a random rank advances or a random message is delivered, until all are
     * done. Fails on a deadlock (nothing can move), on no end, and on messages left behind.
     */
    private static void drive(PlanRunner[] runners, SimFabric fabric, SplittableRandom random, String name) {
        int n = runners.length;
        boolean[] done = new boolean[n];
        long steps = 0;
        int finished = 0;
        while (finished < n) {
            if (++steps > 50_000_000) {
                fail("no end after 50M steps: " + name);
            }
            boolean moved = false;
            if (random.nextBoolean()) {
                moved = fabric.deliverOne();
            }
            if (!moved) {
                int r = random.nextInt(n);
                moved = !done[r] && runners[r].progress();
            }
            if (!moved && !anyCanMove(runners, done, fabric)) {
                fail("deadlock: no rank can advance and no message can be delivered: " + name);
            }
            for (int r = 0; r < n; r++) {
                if (!done[r] && runners[r].done()) {
                    done[r] = true;
                    finished++;
                }
            }
        }
        if (!fabric.quiet()) {
            fail("messages left behind after every rank finished: " + name);
        }
    }

    private static boolean anyCanMove(PlanRunner[] runners, boolean[] done, SimFabric fabric) {
        for (int r = 0; r < runners.length; r++) {
            if (!done[r] && runners[r].progress()) {
                return true;
            }
        }
        return fabric.deliverOne();
    }

    private static void start(PlanRunner runner, Case c, CollectiveCheck check, int r, int n, long count, int root,
                              long chunkElements, MemorySegment send, MemorySegment recv, boolean inPlace,
                              boolean singleCopySends) {
        int es = c.type.sizeBytes();
        ReduceOp op = check.opFor(r);
        Reducer reducer = op == null ? null : Reducers.of(c.type, op, n);
        PlanBuilder b = new PlanBuilder(r, n, es, chunkElements);
        MemorySegment[] sends;
        MemorySegment[] recvs;
        long[] tags;
        int[] elementBytes;
        OpRequest[] requests;
        if (c.kind == OpKind.P2P) {
            // A ring of send/recv as one group: lane 1 sends to rank+1, lane 2 receives from rank-1.
            long tag = Fingerprint.tag(OpKind.P2P, 0, count, c.type, null, -1);
            if (n > 1) {
                b.member(0);
                Algorithms.build(b, new OpShape(OpKind.P2P, count, -1, (r + 1) % n, true, false, null, null, null,
                        null), Algorithm.AUTO);
                b.newLane();
                b.member(1);
                Algorithms.build(b, new OpShape(OpKind.P2P, count, -1, (r - 1 + n) % n, false, false, null, null,
                        null, null), Algorithm.AUTO);
            } else {
                b.copy(io.jccl.plan.Buf.SEND, 0, io.jccl.plan.Buf.RECV, 0, count, false, false);
            }
            sends = new MemorySegment[] {send, send};
            recvs = new MemorySegment[] {recv, recv};
            tags = new long[] {tag, tag};
            elementBytes = new int[] {es, es};
            OpRequest req = OpRequest.p2p(true, send, count, c.type, (r + 1) % n, new OpFuture(null));
            requests = new OpRequest[] {req, req};
        } else {
            OpShape shape = c.kind == OpKind.ALL_TO_ALLV
                    ? new OpShape(c.kind, count, root, -1, false, false, check.sendCounts(r), check.sendDispls(r),
                    check.recvCounts(r), check.recvDispls(r))
                    : OpShape.collective(c.kind, count, root, inPlace);
            Algorithms.build(b, shape, c.algorithm == Algorithm.AUTO ? Algorithm.RING : c.algorithm);
            sends = new MemorySegment[] {send};
            recvs = new MemorySegment[] {recv};
            tags = new long[] {Fingerprint.tag(c.kind, 0, c.kind == OpKind.ALL_TO_ALLV ? 0 : count, c.type,
                    c.op == null ? null : ReduceOp.SUM, root)};
            elementBytes = new int[] {es};
            requests = new OpRequest[] {OpRequest.collective(c.kind, count, c.type, op, root, send, recv, inPlace,
                    new OpFuture(null))};
            requests[0].singleCopySends = singleCopySends;
        }
        Plan plan = b.build("sim");
        runner.start(plan, sends, recvs, tags, elementBytes, new Reducer[] {reducer, reducer}, requests);
    }
}
