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
        List<Case> cases = new ArrayList<>();
        for (Algorithm a : new Algorithm[] {Algorithm.RING, Algorithm.TREE, Algorithm.RECURSIVE_DOUBLING}) {
            reducing(cases, OpKind.ALL_REDUCE, a);
        }
        reducing(cases, OpKind.REDUCE, Algorithm.AUTO);
        reducing(cases, OpKind.REDUCE_SCATTER, Algorithm.AUTO);
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
            SimFabric fabric = run(c, 2, 1000, 64, 42, "single copy " + marked, marked, false);
            int[] counts = fabric.sendCounts(0, 1);
            org.assertj.core.api.Assertions.assertThat(counts[1]).isPositive();
            org.assertj.core.api.Assertions.assertThat(counts[0]).as("single-copy sends, marked %s", marked)
                    .isEqualTo(marked ? counts[1] : 0);
        }
    }

    private static void run(Case c, int n, long count, long chunkElements, long seed, String name) {
        run(c, n, count, chunkElements, seed, name, false, false);
    }

    private static SimFabric run(Case c, int n, long count, long chunkElements, long seed, String name,
                                 boolean singleCopySends, boolean inPlace) {
        SimFabric fabric = new SimFabric(n, seed);
        SplittableRandom random = new SplittableRandom(~seed);
        int root = (int) Math.floorMod(seed, n);
        CollectiveCheck check = new CollectiveCheck(c.kind, c.type, c.op, n, count, root, seed);
        int es = c.type.sizeBytes();
        PlanRunner[] runners = new PlanRunner[n];
        MemorySegment[] recv = new MemorySegment[n];
        boolean[] done = new boolean[n];
        try (Arena arena = Arena.ofShared()) {
            for (int r = 0; r < n; r++) {
                PeerLinks links = new PeerLinks(n, List.of());
                for (int p = 0; p < n; p++) {
                    if (p != r) {
                        links.dataSend[p] = fabric.sendEnd(r, p);
                        links.dataRecv[p] = fabric.recvEnd(p, r);
                    }
                }
                StagingPool staging = new StagingPool(chunkElements * es);
                runners[r] = new PlanRunner(r, links, staging, null);
                MemorySegment send = arena.allocate(Math.max(1, check.sendElements(r) * es));
                recv[r] = inPlace ? send : arena.allocate(Math.max(1, check.recvElements(r) * es));
                check.fillSend(r, send);
                start(runners[r], c, check, r, n, count, root, chunkElements, send, recv[r], inPlace,
                        singleCopySends);
            }
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
            for (int r = 0; r < n; r++) {
                String mismatch = check.firstMismatch(r, recv[r]);
                if (mismatch != null) {
                    fail(name + ": " + mismatch);
                }
            }
        }
        return fabric;
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
