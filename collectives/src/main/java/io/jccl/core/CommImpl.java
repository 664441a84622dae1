package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.plan.OpKind;
import io.jccl.tune.Tuner;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;


/**
 * The {@link Communicator}: checks arguments, queues operations for its {@link CommExecutor}, manages groups.
 *
 * <p>When the executor is stepped by its caller ({@link SteppedCommunicator}), nothing here may block the caller:
 * {@code close()} and {@code abort()} only ask, and waiting for an operation ({@code await()}, {@code get()},
 * {@code synchronize()}) is refused, as are split and shrink, which wait for their peers.
 */
public final class CommImpl implements Communicator {
    private final String name;
    private final int rank;
    private final int size;
    private final CommConfig.Resolved config;
    private final CommExecutor executor;
    /** Whether the caller steps the executor ({@link SteppedCommunicator}) instead of its own thread. */
    private final boolean stepped;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ShrinkRendezvous shrinkRendezvous;
    private volatile boolean aborted;
    /** The operation latest in issue order (threads may finish enqueueing out of order). */
    private final AtomicReference<OpFuture> lastIssued = new AtomicReference<>();

    // Group state: owned by one thread at a time.
    private final Object groupLock = new Object();
    private volatile Thread groupOwner;
    private int groupDepth;
    private List<OpRequest> groupOps;
    /** How long waiting callers drive before they block, shared by this communicator's operations. */
    private final AwaitSpin awaitSpin;
    /**
     * How long the issuing thread runs a small collective at most ({@link #INLINE_SPIN_NS}, or the configured spin
     * when shorter); 0, no fast path, without a spin (more busy threads than cores): there the issuing thread would
     * hold a core that a peer needs to answer, and hand over anyway (4 ranks on 2 cores measured slower,
     * docs/performance.md).
     */
    private final long inlineSpinNs;
    /** Why the open group must not launch: the body of a nested {@link #group} threw. */
    private Throwable groupAbandoned;
    /** What {@link #allocate} handed out. */
    private final CommMemory memory;

    /**
     * @param shrinkRendezvous null when stepped (no shrink)
     * @param clock            the executor's clock
     * @param stepped          true: the executor has no thread; the caller steps it ({@link SteppedCommunicator})
     */
    CommImpl(String name, int rank, int size, CommConfig.Resolved config, PeerLinks links, ExecutorSignal signal,
             Tuner tuner, long stagingSlotBytes, boolean transportsSignal, Spin spin, String[] peerNames,
             ShrinkRendezvous shrinkRendezvous, NanoClock clock, boolean stepped) {
        this.shrinkRendezvous = shrinkRendezvous;
        this.stepped = stepped;
        this.awaitSpin = new AwaitSpin(spin.inOpNs(), spin.yieldNs());
        this.inlineSpinNs = Math.min(INLINE_SPIN_NS, Math.max(0, spin.inOpNs()));
        this.name = name;
        this.rank = rank;
        this.size = size;
        this.config = config;
        this.executor = new CommExecutor(this, rank, size, config, links, signal, tuner, stagingSlotBytes,
                transportsSignal, spin.inOpNs(), spin.idleNs(), name, peerNames, clock, stepped);
        this.memory = new CommMemory(links.transports, rank);
    }

    @Override
    public MemorySegment allocate(long bytes) {
        return memory.allocate(bytes);
    }

    @Override
    public void free(MemorySegment segment) {
        memory.free(segment);
    }

    CommExecutor executor() {
        return executor;
    }

    void start() {
        executor.start();
    }

    String name() {
        return name;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public CommConfig.Resolved config() {
        return config;
    }

    private Thread executorThread() {
        return executor.thread();
    }

    /** Tests: this rank goes silent to its peers (no heartbeats, no reports), as a hung process would. */
    void silenceForTests() {
        executor.silenceForTests();
    }

    /** See {@link io.jccl.metrics.OperationListeners#register(Communicator, io.jccl.metrics.OperationListener)}. */
    public void addOperationListener(io.jccl.metrics.OperationListener listener) {
        executor.addListener(listener);
    }

    /** See {@link io.jccl.metrics.OperationListeners#unregister(Communicator, io.jccl.metrics.OperationListener)}. */
    public void removeOperationListener(io.jccl.metrics.OperationListener listener) {
        executor.removeListener(listener);
    }

    /** The executor thread, for tests that look at it (e.g. its allocation counter). */
    Thread executorThreadForTests() {
        return executor.thread();
    }

    /**
     * Collectives whose data (count x element size x ranks) is at most this go the fast path first
     * ({@link CommExecutor#runInline}): the issuing thread runs them at once when nothing else is pending.
     */
    static final long INLINE_MAX_BYTES = 64 * 1024;
    /**
     * The longest the issuing thread runs such a collective before it hands it over unfinished (or the configured
     * spin, when shorter): long enough for a peer that issues in step, short enough that one thread issuing for
     * several in-JVM ranks ({@code Communicator.local}) loses little on each before the next has issued.
     */
    static final long INLINE_SPIN_NS = 5_000;

    /**
     * Issues a checked collective: run at once by this thread when it is small and nothing else is pending
     * (nothing allocated when it completes within the waiting caller's spin), else queued.
     */
    private CollectiveFuture collective(OpKind kind, long count, DataType type, ReduceOp op, int root,
                                        MemorySegment send, MemorySegment recv, boolean inPlace, DeviceArgs device) {
        if (inlineSpinNs > 0 && device == null && groupOwner == null && !stepped
                && count <= INLINE_MAX_BYTES / size / (type == null ? 1 : type.sizeBytes())) {
            OpFuture f = executor.runInline(kind, count, type, op, root, send, recv, inPlace, inlineSpinNs);
            if (f == OpFuture.COMPLETED) {
                awaitSpin.completedWithoutBlocking();
                return f;
            }
            if (f != null) {
                if (f.position() > 0) {   // handed over unfinished (not failed): it joins the issue order
                    lastIssued.accumulateAndGet(f, CommImpl::later);
                }
                return f;
            }
        }
        return submit(OpRequest.collective(kind, count, type, op, root, send, recv, inPlace,
                newFuture(dataBytes(count, type))), device);
    }

    /** @return the later of two issued operations, by their order keys ({@link CommExecutor#ORDER_SHIFT}) */
    private static OpFuture later(OpFuture a, OpFuture b) {
        return a == null || b.position() > a.position() ? b : a;
    }

    OpFuture newFuture() {
        return newFuture(0);
    }

    /** @param opBytes the operation's data per rank in bytes, 0 when not known: a larger one's waiter spins longer */
    OpFuture newFuture(long opBytes) {
        return new OpFuture(executorThread(), stepped ? null : executor, awaitSpin, stepped, opBytes);
    }

    /** @return count elements of type in bytes, saturated (a barrier's null type counts as bytes) */
    static long dataBytes(long count, DataType type) {
        int size = type == null ? 1 : type.sizeBytes();
        return count > Long.MAX_VALUE / size ? Long.MAX_VALUE : count * size;
    }

    /** Refuses what would block the thread that steps this communicator. */
    private void checkNotStepped(String what) {
        if (stepped) {
            throw new JcclException(ErrorCode.INVALID_USAGE, what + " is not supported by the stepped (simulation) "
                    + "executor: " + OpFuture.STEPPED_HINT);
        }
    }

    private void checkOpen() {
        if (aborted) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "the communicator (rank " + rank + ") was aborted");
        }
        if (closed.get()) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "the communicator (rank " + rank + ") is closed");
        }
    }

    private CollectiveFuture submit(OpRequest op) {
        Thread owner = groupOwner;
        if (owner != null) {
            synchronized (groupLock) {
                if (groupOwner == Thread.currentThread()) {
                    if (op.type == OpRequest.Type.SPLIT) {
                        throw new JcclException(ErrorCode.INVALID_USAGE, "split cannot be part of a group");
                    }
                    groupOps.add(op);
                    op.future.heldByGroupOf(Thread.currentThread());
                    return op.future;
                }
                if (groupOwner != null) {
                    throw new JcclException(ErrorCode.INVALID_USAGE, "thread '" + groupOwner.getName()
                            + "' has a group open on this communicator; operations from other threads are refused "
                            + "until it ends the group");
                }
            }
        }
        if (op.type == OpRequest.Type.P2P && op.peer == rank) {
            throw new JcclException(ErrorCode.INVALID_USAGE, (op.p2pSend ? "send to" : "recv from")
                    + " this rank itself must be in a group with the matching " + (op.p2pSend ? "recv" : "send"));
        }
        enqueue(op);
        return op.future;
    }

    /** Binds the device buffers (if any) to the checked request, then queues it. */
    private CollectiveFuture submit(OpRequest op, DeviceArgs device) {
        if (device != null) {
            device.attach(op, size);
        }
        return submit(op);
    }

    private void enqueue(OpRequest op) {
        long parkNs = 1_000;
        long position;
        while ((position = executor.offer(op)) < 0) {
            checkOpen();
            if (stepped) {
                throw new JcclException(ErrorCode.INVALID_USAGE, "the operation queue is full ("
                        + config.maxPendingOps() + ") and this communicator is stepped by its caller: step it "
                        + "until operations complete, or raise " + CommConfig.MAX_PENDING_OPS);
            }
            if (Thread.currentThread() == executorThread() || executor.isDrivenByCurrentThread()) {
                throw new JcclException(ErrorCode.INVALID_USAGE, "the operation queue is full ("
                        + config.maxPendingOps() + ") and this is the communicator's own thread; raise "
                        + CommConfig.MAX_PENDING_OPS + " or do not issue operations from completion callbacks");
            }
            LockSupport.parkNanos(parkNs);
            parkNs = Math.min(parkNs * 2, 1_000_000);
        }
        op.future.position(CommExecutor.queuedOrder(position));
        lastIssued.accumulateAndGet(op.future, CommImpl::later);
        // close() may have drained the queue for the last time between the open check and the offer; then
        // nobody else will complete this operation. (The fence orders the offer before the check, against the
        // executor's "terminated, then drain".)
        VarHandle.fullFence();
        if (executor.isTerminated()) {
            executor.failStranded();
        }
    }

    // ---- Data operations: one path each for count-based calls and all-to-allv, checked by their OpRule ----

    @Override
    public CollectiveFuture allReduce(Buffer send, Buffer recv, long count, DataType type, ReduceOp op) {
        return issue(OpRule.ALL_REDUCE, send, recv, count, type, op, -1);
    }

    @Override
    public CollectiveFuture broadcast(Buffer send, Buffer recv, long count, DataType type, int root) {
        return issue(OpRule.BROADCAST, send, recv, count, type, null, root);
    }

    @Override
    public CollectiveFuture reduce(Buffer send, Buffer recv, long count, DataType type, ReduceOp op, int root) {
        return issue(OpRule.REDUCE, send, recv, count, type, op, root);
    }

    @Override
    public CollectiveFuture allGather(Buffer send, Buffer recv, long sendCount, DataType type) {
        return issue(OpRule.ALL_GATHER, send, recv, sendCount, type, null, -1);
    }

    @Override
    public CollectiveFuture reduceScatter(Buffer send, Buffer recv, long recvCount, DataType type, ReduceOp op) {
        return issue(OpRule.REDUCE_SCATTER, send, recv, recvCount, type, op, -1);
    }

    @Override
    public CollectiveFuture allToAll(Buffer send, Buffer recv, long count, DataType type) {
        return issue(OpRule.ALL_TO_ALL, send, recv, count, type, null, -1);
    }

    @Override
    public CollectiveFuture gather(Buffer send, Buffer recv, long sendCount, DataType type, int root) {
        return issue(OpRule.GATHER, send, recv, sendCount, type, null, root);
    }

    @Override
    public CollectiveFuture scatter(Buffer send, Buffer recv, long recvCount, DataType type, int root) {
        return issue(OpRule.SCATTER, send, recv, recvCount, type, null, root);
    }

    @Override
    public CollectiveFuture send(Buffer buffer, long count, DataType type, int peer) {
        return issue(OpRule.SEND, buffer, null, count, type, null, peer);
    }

    @Override
    public CollectiveFuture recv(Buffer buffer, long count, DataType type, int peer) {
        return issue(OpRule.RECV, null, buffer, count, type, null, peer);
    }

    /**
     * Checks a count-based call by its rule and issues it. Device buffers are checked through the segments
     * standing in for them ({@link DeviceArgs}) and staged by the executor when they have no host view.
     *
     * @param root the root, or the peer of send and receive; ignored by rules without one
     */
    private CollectiveFuture issue(OpRule rule, Buffer send, Buffer recv, long count, DataType type, ReduceOp op,
                                   int root) {
        checkOpen();
        ArgChecks.type(type);
        DeviceArgs device = deviceArgs(rule, send, recv);
        MemorySegment s = device != null ? device.sendSegment() : OpRule.host(send, rule.sendName, type);
        MemorySegment r = device != null ? device.recvSegment() : OpRule.host(recv, rule.recvName, type);
        device = device != null && device.staged() ? device : null;   // all host views: a plain segment call
        boolean inPlace = rule.check(rank, size, executorThread(), s, r, count, type, op, root);
        s = rule.usesSend(rank, root) ? s : null;
        r = rule.usesRecv(rank, root) ? r : null;
        if (rule.kind == OpKind.P2P) {
            boolean isSend = rule == OpRule.SEND;
            return submit(OpRequest.p2p(isSend, isSend ? s : r, count, type, root, newFuture(dataBytes(count, type))),
                    device);
        }
        return collective(rule.kind, count, type, rule.reduces ? op : null, rule.rankName != null ? root : -1, s, r,
                inPlace, device);
    }

    /**
     * @return the device arguments when a buffer is a {@link DeviceBuffer} (both are then, by the rule's check),
     *         with segments standing in for the buffers; null for host memory
     */
    private static DeviceArgs deviceArgs(OpRule rule, Buffer send, Buffer recv) {
        if (!(send instanceof DeviceBuffer) && !(recv instanceof DeviceBuffer)) {
            return null;
        }
        rule.checkSameMemory(send, recv);
        return DeviceArgs.of(rule, (DeviceBuffer) send, (DeviceBuffer) recv);
    }

    @Override
    public CollectiveFuture allToAllv(Buffer send, long[] sendCounts, long[] sendDispls, Buffer recv,
                                      long[] recvCounts, long[] recvDispls, DataType type) {
        checkOpen();
        ArgChecks.type(type);
        OpRule rule = OpRule.ALL_TO_ALLV;
        DeviceArgs device = deviceArgs(rule, send, recv);
        MemorySegment s = device != null ? device.sendSegment() : OpRule.host(send, rule.sendName, type);
        MemorySegment r = device != null ? device.recvSegment() : OpRule.host(recv, rule.recvName, type);
        device = device != null && device.staged() ? device : null;
        long[] sc = OpRule.countsArray("sendCounts", sendCounts, size);
        long[] sd = OpRule.countsArray("sendDispls", sendDispls, size);
        long[] rc = OpRule.countsArray("recvCounts", recvCounts, size);
        long[] rd = OpRule.countsArray("recvDispls", recvDispls, size);
        long sendEnd = OpRule.extent("send", s, sc, sd, type);
        long recvEnd = OpRule.extent("recv", r, rc, rd, type);
        rule.checkBuffers(rank, -1, executorThread(), s, sendEnd, r, recvEnd);
        return submit(OpRequest.allToAllv(s, sc, sd, r, rc, rd, type, newFuture()), device);
    }

    @Override
    public CollectiveFuture barrier() {
        checkOpen();
        return collective(OpKind.BARRIER, 0, null, null, -1, null, null, false, null);
    }

    // ---- Groups ----

    @Override
    public void groupStart() {
        checkOpen();
        synchronized (groupLock) {
            Thread me = Thread.currentThread();
            if (groupOwner == null) {
                groupOwner = me;
                groupDepth = 1;
                groupOps = new ArrayList<>();
            } else if (groupOwner == me) {
                groupDepth++;
            } else {
                throw new JcclException(ErrorCode.INVALID_USAGE, "thread '" + groupOwner.getName()
                        + "' already has a group open on this communicator");
            }
        }
    }

    @Override
    public CollectiveFuture groupEnd() {
        List<OpRequest> ops;
        Throwable abandoned;
        synchronized (groupLock) {
            if (groupOwner != Thread.currentThread()) {
                throw new JcclException(ErrorCode.INVALID_USAGE, "groupEnd without a matching groupStart on this "
                        + "thread");
            }
            if (--groupDepth > 0) {
                return OpFuture.completed();
            }
            ops = groupOps;
            abandoned = groupAbandoned;
            groupOps = null;
            groupOwner = null;
            groupAbandoned = null;
        }
        if (abandoned != null) {
            JcclException e = notLaunched(abandoned);
            failAll(ops, e);
            throw new JcclException(e.code(), e.detail(), e);
        }
        try {
            checkOpen();
        } catch (JcclException e) {
            failAll(ops, e);   // they were never queued: nothing else would complete them
            throw e;
        }
        for (OpRequest op : ops) {
            op.future.heldByGroupOf(null);
        }
        if (ops.isEmpty()) {
            return OpFuture.completed();
        }
        String selfMismatch = selfPairMismatch(ops);
        if (selfMismatch != null) {
            JcclException e = new JcclException(ErrorCode.INVALID_USAGE, selfMismatch + "; nothing in the group was "
                    + "launched");
            failAll(ops, e);
            throw e;
        }
        OpRequest group = OpRequest.group(ops, newFuture());
        enqueue(group);
        return group.future;
    }

    /** Sends to this rank and receives from it must pair up in order with equal counts and types. */
    private String selfPairMismatch(List<OpRequest> ops) {
        List<OpRequest> sends = new ArrayList<>();
        List<OpRequest> recvs = new ArrayList<>();
        for (OpRequest op : ops) {
            if (op.type == OpRequest.Type.P2P && op.peer == rank) {
                (op.p2pSend ? sends : recvs).add(op);
            }
        }
        if (sends.size() != recvs.size()) {
            return "the group has " + sends.size() + " sends to this rank (" + rank + ") but " + recvs.size()
                    + " receives from it";
        }
        for (int i = 0; i < sends.size(); i++) {
            OpRequest snd = sends.get(i);
            OpRequest rcv = recvs.get(i);
            if (snd.count != rcv.count || snd.dataType != rcv.dataType) {
                return "send to self #" + i + " " + snd.describe() + " does not match receive from self "
                        + rcv.describe();
            }
        }
        return null;
    }

    /**
     * Like the default, but a body that throws launches nothing: the operations it collected fail with
     * INVALID_USAGE (launching part of a group would leave the peers' matching operations waiting, or
     * mismatched), and the body's exception propagates. Within an outer group, the outer group is abandoned too.
     */
    @Override
    public CollectiveFuture group(java.util.function.Consumer<Communicator> body) {
        groupStart();
        try {
            body.accept(this);
        } catch (RuntimeException | Error e) {
            abandonGroup(e);
            throw e;
        }
        return groupEnd();
    }

    private void abandonGroup(Throwable cause) {
        List<OpRequest> ops;
        synchronized (groupLock) {
            if (groupOwner != Thread.currentThread()) {
                return;   // the body already ended the group itself
            }
            if (groupAbandoned == null) {
                groupAbandoned = cause;
            }
            if (--groupDepth > 0) {
                return;   // the outermost groupEnd reports it and fails everything collected
            }
            ops = groupOps;
            groupOps = null;
            groupOwner = null;
            groupAbandoned = null;
        }
        failAll(ops, notLaunched(cause));
    }

    private static JcclException notLaunched(Throwable cause) {
        String why = cause instanceof JcclException je ? je.code() + ": " + je.detail() : String.valueOf(cause);
        return new JcclException(ErrorCode.INVALID_USAGE, "the group was not launched: its body threw " + why, cause);
    }

    private static void failAll(List<OpRequest> ops, JcclException e) {
        for (OpRequest op : ops) {
            op.future.fail(e);
        }
    }

    // ---- Lifecycle ----

    @Override
    public Optional<Communicator> split(int color, int key) {
        checkOpen();
        if (color < 0 && color != SPLIT_NO_COLOR) {
            throw ArgChecks.invalid("color must be >= 0 or SPLIT_NO_COLOR (-1), got " + color);
        }
        if (stepped) {
            throw new JcclException(ErrorCode.INVALID_USAGE, CommExecutor.SPLIT_NOT_STEPPED);
        }
        if (Thread.currentThread() == executorThread() || executor.isDrivenByCurrentThread()) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "split cannot be called from a completion callback");
        }
        CompletableFuture<Optional<Communicator>> result = new CompletableFuture<>();
        OpRequest op = OpRequest.split(color, key, newFuture(), result);
        submit(op);
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "interrupted while splitting", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof JcclException je) {
                throw new JcclException(je.code(), je.detail(), je);
            }
            throw new JcclException(ErrorCode.INTERNAL_ERROR, "split failed: " + c, c);
        }
    }

    ShrinkRendezvous shrinkRendezvous() {
        return shrinkRendezvous;
    }

    @Override
    public Communicator shrink(int... excludedRanks) {
        if (closed.get() && !aborted) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "the communicator (rank " + rank + ") is closed; "
                    + "shrink it before closing it (aborting is fine)");
        }
        if (excludedRanks == null) {
            throw ArgChecks.invalid("excludedRanks must not be null");
        }
        checkNotStepped("shrink");
        if (Thread.currentThread() == executorThread() || executor.isDrivenByCurrentThread()) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "shrink cannot be called from a completion callback");
        }
        int[] excluded = excludedRanks.clone();
        java.util.Arrays.sort(excluded);
        for (int i = 0; i < excluded.length; i++) {
            ArgChecks.rank("excludedRanks[" + i + "]", excluded[i], size);
            if (i > 0 && excluded[i] == excluded[i - 1]) {
                throw ArgChecks.invalid("excludedRanks lists rank " + excluded[i] + " twice");
            }
            if (excluded[i] == rank) {
                throw ArgChecks.invalid("excludedRanks lists this rank (" + rank + "); only the remaining ranks call "
                        + "shrink");
            }
        }
        int[] survivors = new int[size - excluded.length];
        int newRank = -1;
        for (int r = 0, i = 0; r < size; r++) {
            if (java.util.Arrays.binarySearch(excluded, r) < 0) {
                if (r == rank) {
                    newRank = i;
                }
                survivors[i++] = r;
            }
        }
        io.jccl.UniqueId id = shrinkRendezvous.start(rank, excluded, survivors, config.initTimeout());
        try (io.jccl.bootstrap.Bootstrap bootstrap = io.jccl.bootstrap.TcpBootstrap.join(id, newRank,
                survivors.length, config.initTimeout())) {
            return CommInit.create(bootstrap, config, name + ".shrunk");
        }
    }

    @Override
    public void synchronize() {
        checkNotStepped("synchronize()");
        OpFuture last = lastIssued.get();
        if (last != null) {
            last.await();
        }
    }

    @Override
    public Optional<JcclException> asyncError() {
        return Optional.ofNullable(executor.failure());
    }

    @Override
    public void abort() {
        if (executor.isTerminated()) {
            closed.set(true);
            memory.close();
            return;   // closed (or aborted) already: nothing left to stop, and close's outcome stands
        }
        aborted = true;
        closed.set(true);
        executor.requestAbort();
        if (!stepped && Thread.currentThread() != executorThread() && !executor.isDrivenByCurrentThread()) {
            executor.awaitTermination(1_000);
        }
        if (executor.isTerminated()) {   // its operations ended: nothing uses the memory any more
            memory.close();
        }
    }

    @Override
    public void close() {
        if (shrinkRendezvous != null) {
            shrinkRendezvous.close();
        }
        if (!closed.compareAndSet(false, true)) {
            if (!stepped && Thread.currentThread() != executorThread() && !executor.isDrivenByCurrentThread()) {
                executor.awaitTermination(Long.MAX_VALUE / 2_000_000);
            }
            if (executor.isTerminated()) {
                memory.close();
            }
            return;
        }
        executor.requestClose();
        if (!stepped && Thread.currentThread() != executorThread() && !executor.isDrivenByCurrentThread()) {
            executor.awaitTermination(Long.MAX_VALUE / 2_000_000);
        }
        if (executor.isTerminated()) {   // its operations ended: nothing uses the memory any more
            memory.close();
        }
    }

    @Override
    public String toString() {
        return "Communicator[" + name + ", rank " + rank + " of " + size + "]";
    }
}
