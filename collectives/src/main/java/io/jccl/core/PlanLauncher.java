package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.CommConfig;
import io.jccl.DataType;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.algo.Algorithms;
import io.jccl.algo.RingAllGather;
import io.jccl.plan.Fingerprint;
import io.jccl.plan.OpKind;
import io.jccl.plan.OpShape;
import io.jccl.plan.Plan;
import io.jccl.prims.PlanBuilder;
import io.jccl.reduce.Reducer;
import io.jccl.reduce.Reducers;
import io.jccl.tune.Tuner;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Starts the plans of a {@link CommExecutor}'s operations, on the thread that steps it: assigns call numbers (and so
 * the fingerprint tags), sends an all-reduce through the box lines ({@link BoxAllReduce}) or the peers' buffers
 * ({@link DirectAllReduce}) where the ranks have them, picks or reuses a plan for anything else and binds the
 * operation's buffers to it in the {@link PlanRunner}. What runs is handed to the executor ({@link
 * CommExecutor#startRun}), which progresses it and keeps the time; when it finished, {@link #planDone} tells the
 * listeners.
 */
final class PlanLauncher {
    private final CommExecutor executor;
    private final int rank;
    private final int size;
    private final CommConfig.Resolved config;
    private final Tuner tuner;
    private final StagingPool staging;
    private final PlanRunner runner;
    private final NanoClock clock;
    private final OperationReporter reporter;
    /** The ranks of this rank's {@code Communicator.local} call, when all-reduce reads peers' buffers; else null. */
    private DirectGroup directGroup;
    /** Runs the direct-read all-reduces; null without {@link #directGroup}. */
    private DirectAllReduce direct;
    /** The all-reduce through the box lines of a host's ranks, or null where they have none. */
    private BoxAllReduce box;
    /**
     * Times single copy against the pipelined copies where the tuner allows single copy, with verdicts shared in the
     * box lines; null without box lines or with a configured algorithm (then the tuner's rule holds alone).
     */
    private SingleCopyChoice singleCopyChoice;
    private final PlanCache plans = new PlanCache();
    private final Map<DataType, Map<ReduceOp, Reducer>> reducers = new EnumMap<>(DataType.class);
    private long collectiveSeq;
    private final long[] p2pSendSeq;
    private final long[] p2pRecvSeq;

    /** The running plan's operations, for the timeout message and the listeners. */
    private OpRequest[] planMembers;
    /** The running plan's algorithm, for the listeners. */
    private String planAlgorithm;
    private long planStartNs;
    // The last plan and reducer chosen, probed first (the executor's thread or driver only).
    private OpKind lastPlanKind;
    private long lastPlanCount;
    private int lastPlanRoot;
    private boolean lastPlanFlag;
    private int lastPlanElementBytes;
    private boolean lastPlanSingleCopy;
    private Plan lastPlan;
    private ReduceOp lastReduceOp;
    private DataType lastReduceType;
    private Reducer lastReducer;

    // Bindings for single operations, reused.
    private final MemorySegment[] oneSend = new MemorySegment[1];
    private final MemorySegment[] oneRecv = new MemorySegment[1];
    private final long[] oneTag = new long[1];
    private final int[] oneElementBytes = new int[1];
    private final Reducer[] oneReducer = new Reducer[1];
    private final OpRequest[] oneOp = new OpRequest[1];

    PlanLauncher(CommExecutor executor, int rank, int size, CommConfig.Resolved config, Tuner tuner,
                 StagingPool staging, PlanRunner runner, NanoClock clock, OperationReporter reporter) {
        this.executor = executor;
        this.rank = rank;
        this.size = size;
        this.config = config;
        this.tuner = tuner;
        this.staging = staging;
        this.runner = runner;
        this.clock = clock;
        this.reporter = reporter;
        this.p2pSendSeq = new long[size];
        this.p2pRecvSeq = new long[size];
    }

    /** See {@link CommExecutor#joinDirectGroup}. */
    void joinDirectGroup(DirectGroup group, ExecutorSignal signal) {
        directGroup = group;
        direct = new DirectAllReduce(group, rank, clock);
        group.join(rank, signal);
    }

    /** See {@link CommExecutor#joinBox}. */
    void joinBox(BoxAllReduce allReduce) {
        box = allReduce;
        if (config.algorithm() == Algorithm.AUTO && tuner.singleCopyMaxBytes() > 0) {
            singleCopyChoice = new SingleCopyChoice(rank, allReduce.ownLines(), allReduce.peerLines());
        }
    }

    /** @return the direct-read all-reduce, or null without a direct group */
    DirectAllReduce direct() {
        return direct;
    }

    /** @return the next collective's call number: a split numbers its child after it */
    long collectiveSeq() {
        return collectiveSeq;
    }

    /** @return the running plan's operations (for the timeout message), or null between plans */
    OpRequest[] planMembers() {
        return planMembers;
    }

    /**
     * Starts the plan of one collective or point-to-point operation (a single operation, or a group's collective).
     *
     * @param startedWithOperation whether the plan starts as its operation did (nothing staged first, no group
     *                             member ran before it): then its time counts from {@code opStartNs}
     */
    void startSingle(OpRequest op, boolean startedWithOperation, long opStartNs) {
        long seq = collectiveSeq;
        long tag = nextTag(op);
        if (box != null && op.type == OpRequest.Type.COLLECTIVE) {
            // Decided by what every rank has in common (the host-wide box, kind, configured algorithm, count, type):
            // ranks that disagree see each other's calls in the box lines and fail instead of waiting.
            if (op.kind == OpKind.ALL_REDUCE && config.algorithm() == Algorithm.AUTO
                    && BoxAllReduce.fits(op.count * elementBytes(op))) {
                startBox(op, seq, tag, startedWithOperation, opStartNs);
                return;
            }
            box.announce(seq, tag);
        }
        if (directGroup != null && op.type == OpRequest.Type.COLLECTIVE) {
            directGroup.announce(rank, seq, tag);
            // Decided by what every rank has in common (group, kind, configured algorithm), never by the count or
            // the buffers: ranks that disagree must all reach the fingerprint check rather than wait on each other.
            if (op.kind == OpKind.ALL_REDUCE && config.algorithm() == Algorithm.AUTO) {
                startDirect(op, seq, tag, startedWithOperation, opStartNs);
                return;
            }
        }
        oneSend[0] = op.send;
        oneRecv[0] = op.recv;
        oneTag[0] = tag;
        oneElementBytes[0] = elementBytes(op);
        oneReducer[0] = reducer(op);
        oneOp[0] = op;
        planStartNs = startedWithOperation ? opStartNs : clock.nanoTime();
        op.singleCopySends = singleCopySends(op);
        Plan plan = planFor(op);
        planAlgorithm = plan.algorithm();
        startPlan(plan, oneSend, oneRecv, oneTag, oneElementBytes, oneReducer, oneOp);
    }

    /**
     * @return whether {@code op}'s sends go single copy: where the tuner allows it, as {@link #singleCopyChoice}
     *         decides, if any
     */
    private boolean singleCopySends(OpRequest op) {
        if (op.kind != OpKind.ALL_REDUCE) {
            return false;
        }
        long bytes = op.count * elementBytes(op);
        if (!tuner.singleCopy(op.kind, bytes, op.inPlace)) {
            return false;
        }
        return singleCopyChoice == null || singleCopyChoice.choose(bytes);
    }

    /** Starts an all-reduce through the box lines (its device buffers are staged by now). */
    private void startBox(OpRequest op, long seq, long tag, boolean startedWithOperation, long opStartNs) {
        runInsteadOfPlan(box, BoxAllReduce.ALGORITHM, op, startedWithOperation, opStartNs);
        box.start(op, seq, tag, reducer(op));
    }

    /** Starts an all-reduce that reads the peers' buffers in place (its device buffers are staged by now). */
    private void startDirect(OpRequest op, long seq, long tag, boolean startedWithOperation, long opStartNs) {
        runInsteadOfPlan(direct, DirectAllReduce.ALGORITHM, op, startedWithOperation, opStartNs);
        direct.start(op, seq, tag, reducer(op));
    }

    /** Makes {@code run} the running operation's data movement, reported to listeners as {@code algorithm}. */
    private void runInsteadOfPlan(OpRun run, String algorithm, OpRequest op, boolean startedWithOperation,
                                  long opStartNs) {
        oneOp[0] = op;
        planMembers = oneOp;
        planAlgorithm = algorithm;
        planStartNs = startedWithOperation ? opStartNs : clock.nanoTime();
        executor.startRun(run);
    }

    /**
     * A group's point-to-point members run as one plan, one lane per (peer, direction), after its collectives.
     *
     * @return false when the group has none
     */
    boolean startGroupPointToPoint(OpRequest group) {
        List<OpRequest> p2p = new ArrayList<>();
        for (OpRequest m : group.members) {
            if (m.type != OpRequest.Type.COLLECTIVE) {
                p2p.add(m);
            }
        }
        if (p2p.isEmpty()) {
            return false;
        }
        copyToSelf(p2p);
        int n = p2p.size();
        MemorySegment[] sends = new MemorySegment[n];
        MemorySegment[] recvs = new MemorySegment[n];
        long[] tags = new long[n];
        int[] elementBytes = new int[n];
        PlanBuilder b = new PlanBuilder(rank, size, 1, Long.MAX_VALUE / 2);
        for (int peer = 0; peer < size; peer++) {
            for (int direction = 0; direction < 2; direction++) {
                boolean sending = direction == 0;
                b.newLane();
                for (int i = 0; i < n; i++) {
                    OpRequest m = p2p.get(i);
                    if (m.peer == peer && m.p2pSend == sending && peer != rank) {
                        sends[i] = m.send;
                        recvs[i] = m.recv;
                        tags[i] = nextTag(m);
                        elementBytes[i] = m.dataType.sizeBytes();
                        b.member(i);
                        Algorithms.build(b, new OpShape(OpKind.P2P, m.count, -1, peer, sending, false, null, null,
                                null, null), Algorithm.AUTO);
                    }
                }
            }
        }
        Plan plan = b.build("p2p");
        planStartNs = clock.nanoTime();
        planAlgorithm = "p2p";
        startPlan(plan, sends, recvs, tags, elementBytes, new Reducer[n], p2p.toArray(new OpRequest[0]));
        return true;
    }

    /**
     * Starts the ring all-gather of {@code recordBytes} per rank that a split runs over this communicator (the
     * caller runs it to its end).
     */
    void startSplitExchange(MemorySegment mine, MemorySegment all, int recordBytes, OpRequest op) {
        PlanBuilder b = new PlanBuilder(rank, size, 1, Math.max(1, staging.slotBytes()));
        RingAllGather.build(b, recordBytes, false);
        long seq = collectiveSeq++;
        long[] tags = {Fingerprint.tag(OpKind.SPLIT, seq, recordBytes, null, null, -1)};
        if (directGroup != null) {
            directGroup.announce(rank, seq, tags[0]);
        }
        if (box != null) {
            box.announce(seq, tags[0]);
        }
        startPlan(b.build("ring"), new MemorySegment[] {mine}, new MemorySegment[] {all}, tags,
                new int[] {1}, new Reducer[1], new OpRequest[] {op});
    }

    private void startPlan(Plan plan, MemorySegment[] sends, MemorySegment[] recvs, long[] tags,
                           int[] elementBytes, Reducer[] reducersByMember, OpRequest[] members) {
        if (plan.stagingBytes() > staging.slotBytes()) {
            throw new JcclException(ErrorCode.INTERNAL_ERROR, "plan needs staging of " + plan.stagingBytes()
                    + " bytes but slots have " + staging.slotBytes());
        }
        planMembers = members;
        executor.startRun(runner);
        runner.start(plan, sends, recvs, tags, elementBytes, reducersByMember, members);
    }

    /** The running plan finished: its operations' listeners hear of it. */
    void planDone() {
        if (singleCopyChoice != null && singleCopyChoice.timing()) {
            singleCopyChoice.record(clock.nanoTime() - planStartNs);
        }
        reporter.planDone(planMembers, planAlgorithm, planStartNs);
        clearBindings();
    }

    /** Drops the references to the last plan's buffers and operations. */
    void clearBindings() {
        oneSend[0] = null;
        oneRecv[0] = null;
        oneOp[0] = null;
        planMembers = null;
    }

    /** A plan run to its end by its starter (a split's exchange) is over: it reports to nobody. */
    void blockingPlanDone() {
        planMembers = null;
    }

    private Reducer reducer(OpRequest op) {
        if (op.op == null) {
            return null;
        }
        if (op.op == lastReduceOp && op.dataType == lastReduceType) {
            return lastReducer;   // a loop repeating one call skips the two lookups
        }
        Reducer r = lookUpReducer(op);
        lastReduceOp = op.op;
        lastReduceType = op.dataType;
        lastReducer = r;
        return r;
    }

    private Reducer lookUpReducer(OpRequest op) {
        Map<ReduceOp, Reducer> byOp = reducers.computeIfAbsent(op.dataType, t -> new HashMap<>());
        Reducer r = byOp.get(op.op);
        if (r == null) {
            r = Reducers.of(op.dataType, op.op, size);
            byOp.put(op.op, r);
        }
        return r;
    }

    private long nextTag(OpRequest op) {
        if (op.type == OpRequest.Type.P2P) {
            long seq = op.p2pSend ? p2pSendSeq[op.peer]++ : p2pRecvSeq[op.peer]++;
            return Fingerprint.tag(OpKind.P2P, seq, op.count, op.dataType, null, -1);
        }
        long countField = op.kind == OpKind.ALL_TO_ALLV ? 0 : op.count;
        return Fingerprint.tag(op.kind, collectiveSeq++, countField, op.dataType, op.op, op.root);
    }

    static int elementBytes(OpRequest op) {
        return op.dataType == null ? 1 : op.dataType.sizeBytes();
    }

    private Plan planFor(OpRequest op) {
        int elem = elementBytes(op);
        long bytes = op.count * elem;
        if (op.kind == OpKind.ALL_GATHER || op.kind == OpKind.REDUCE_SCATTER || op.kind == OpKind.ALL_TO_ALL) {
            bytes *= size;
        }
        boolean cacheable = op.kind != OpKind.ALL_TO_ALLV;
        int root = op.type == OpRequest.Type.P2P ? op.peer : op.root;
        boolean flag = op.type == OpRequest.Type.P2P ? op.p2pSend : op.inPlace;
        if (cacheable && lastPlan != null && op.kind == lastPlanKind && op.count == lastPlanCount
                && root == lastPlanRoot && flag == lastPlanFlag && elem == lastPlanElementBytes
                && op.singleCopySends == lastPlanSingleCopy) {
            return lastPlan;   // a loop repeating one call skips the tuner and the cache (the tuner never changes)
        }
        Plan plan = choosePlan(op, elem, bytes, cacheable, root, flag);
        if (cacheable) {
            lastPlanKind = op.kind;
            lastPlanCount = op.count;
            lastPlanRoot = root;
            lastPlanFlag = flag;
            lastPlanElementBytes = elem;
            lastPlanSingleCopy = op.singleCopySends;
            lastPlan = plan;
        }
        return plan;
    }

    private Plan choosePlan(OpRequest op, int elem, long bytes, boolean cacheable, int root, boolean flag) {
        Algorithm chosen = tuner.algorithm(op.kind, bytes, op.inPlace, op.singleCopySends);
        long chunkBytes = tuner.chunkBytes(chosen, bytes);
        long chunkElements = Math.max(1, chunkBytes / elem);
        Algorithm algorithm = op.kind == OpKind.ALL_REDUCE ? chosen : Algorithm.AUTO;
        if (cacheable) {
            Plan cached = plans.get(op.kind, op.count, root, flag, elem, algorithm, chunkBytes);
            if (cached != null) {
                return cached;
            }
        }
        PlanBuilder b = new PlanBuilder(rank, size, elem, chunkElements);
        OpShape shape = new OpShape(op.kind, op.count, op.root, op.peer, op.p2pSend, op.inPlace, op.sendCounts,
                op.sendDispls, op.recvCounts, op.recvDispls);
        String name = Algorithms.build(b, shape, algorithm);
        Plan plan = b.build(name);
        if (cacheable) {
            plans.put(op.kind, op.count, root, flag, elem, algorithm, chunkBytes, plan);
        }
        return plan;
    }

    /** Sends to this rank within a group: the i-th such send goes to the i-th receive from this rank. */
    private void copyToSelf(List<OpRequest> p2p) {
        List<OpRequest> selfSends = new ArrayList<>();
        List<OpRequest> selfRecvs = new ArrayList<>();
        for (OpRequest m : p2p) {
            if (m.peer == rank) {
                (m.p2pSend ? selfSends : selfRecvs).add(m);
            }
        }
        if (selfSends.size() != selfRecvs.size()) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "the group has " + selfSends.size()
                    + " sends to this rank (" + rank + ") but " + selfRecvs.size() + " receives from it");
        }
        for (int i = 0; i < selfSends.size(); i++) {
            OpRequest s = selfSends.get(i);
            OpRequest r = selfRecvs.get(i);
            if (s.count != r.count || s.dataType != r.dataType) {
                throw new JcclException(ErrorCode.INVALID_USAGE, "send to self #" + i + " " + s.describe()
                        + " does not match receive from self " + r.describe());
            }
            long bytes = s.count * s.dataType.sizeBytes();
            if (bytes > 0) {
                MemorySegment.copy(s.send, 0, r.recv, 0, bytes);
            }
        }
    }
}
