package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.algo.Algorithms;
import io.jccl.algo.RingAllGather;
import io.jccl.bootstrap.Bootstrap;
import io.jccl.plan.Fingerprint;
import io.jccl.plan.OpKind;
import io.jccl.plan.OpShape;
import io.jccl.plan.Plan;
import io.jccl.prims.PlanBuilder;
import io.jccl.reduce.Reducer;
import io.jccl.reduce.Reducers;
import io.jccl.tune.Tuner;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.metrics.OperationListener;
import io.jccl.metrics.OperationListeners;

import java.lang.foreign.Arena;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs a communicator's operations, one at a time in queue order. It assigns call numbers (and so the fingerprint
 * tags), picks or reuses a plan, runs it with the {@link PlanRunner} — or, for an all-reduce between the ranks of
 * one {@code Communicator.local} call, reads the peers' buffers in place ({@link DirectAllReduce}) — enforces the
 * operation timeout, watches the control plane, and turns any failure into the communicator's broken state.
 *
 * <p>It is a state machine that never blocks: {@link #doWork()} does one bounded slice of work and says whether it
 * did any. Normally the communicator's own thread ({@link #run()}) calls it in a loop and idles between calls that
 * did nothing ({@link ExecutorIdle}); a communicator stepped by its caller ({@link SteppedCommunicator}, for
 * deterministic simulation) has no thread, and the caller steps it. Every time it reads comes from one injected
 * clock. The states:
 * <ul>
 * <li>{@link #IDLE}: between operations; takes the next one from the queue, polls the control plane.</li>
 * <li>{@link #RUNNING}: a plan of the current operation runs. A single operation has one plan; a group runs its
 *     collective members' plans one after another, then one plan for all its point-to-point members.</li>
 * <li>{@link #EXPLAINING}: the operation failed because a peer vanished; up to {@link #EXPLANATION_WAIT_NS} for
 *     another rank's report that says why (every rank then fails with the same explanation).</li>
 * <li>{@link #LINGERING}: this rank failed and started telling its peers; the reports get up to 50 ms to leave
 *     before the data connections close and the operation fails.</li>
 * <li>{@link #CLOSING}: close or abort; the goodbye (or abort) reports leave, then everything is closed.</li>
 * <li>{@link #TERMINATED}.</li>
 * </ul>
 * Only a split blocks (in thread mode; a stepped executor refuses it): it builds a child communicator through a
 * nested bootstrap whose exchanges run over this communicator.
 */
final class CommExecutor implements Runnable, Progress {
    private static final Logger LOG = JcclLog.logger(Subsystem.COLL, CommExecutor.class);
    private static final Logger P2P_LOG = JcclLog.logger(Subsystem.P2P, CommExecutor.class);
    /** Bytes per rank in the all-gathers a split runs over its parent. */
    static final int SPLIT_RECORD_BYTES = 4096;
    /** Staging slots allocated (and so touched) at creation: what a pipelined operation between a few peers uses. */
    static final int PREALLOCATED_STAGING_SLOTS = 4;
    /** Timer slack of the executor thread: its short polling parks end on time, not up to 50 µs late. */
    static final long TIMER_SLACK_NS = 1_000;
    /** After a peer vanished, how long to wait for a report from another rank that says why. */
    static final long EXPLANATION_WAIT_NS = 100_000_000L;
    /** What a split fails with in a stepped executor. */
    static final String SPLIT_NOT_STEPPED = "split is not supported by the stepped (simulation) executor";

    private static final int IDLE = 0;
    private static final int RUNNING = 1;
    private static final int EXPLAINING = 2;
    private static final int LINGERING = 3;
    private static final int CLOSING = 4;
    private static final int TERMINATED = 5;

    private final CommImpl comm;
    private final int rank;
    private final int size;
    private final CommConfig.Resolved config;
    private final PeerLinks links;
    private final Arena arena = Arena.ofShared();
    private final ControlPlane control;
    private final StagingPool staging;
    private final PlanRunner runner;
    /** What runs the current operation's data movement: {@link #runner}, or {@link #direct} (all-reduce in one JVM). */
    private OpRun running;
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
    private final Tuner tuner;
    private final PlanCache plans = new PlanCache();
    private final OpQueue<OpRequest> queue;
    private final ExecutorSignal signal;
    private final NanoClock clock;
    /** True when the caller steps this executor ({@link SteppedCommunicator}): no thread, no idling. */
    private final boolean stepped;
    /** How the thread waits when a step did nothing; null when stepped. */
    private final ExecutorIdle idle;
    /** The executor's own thread; null when stepped. */
    private final Thread thread;
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final Map<DataType, Map<ReduceOp, Reducer>> reducers = new EnumMap<>(DataType.class);
    private final long opTimeoutNs;

    private volatile JcclException failure;
    private volatile boolean abortRequested;
    private volatile boolean closeRequested;
    /** What operations queued after shutdown fail with. */
    private volatile JcclException endError;
    private long collectiveSeq;
    private final long[] p2pSendSeq;
    private final long[] p2pRecvSeq;

    // State of the machine; only the stepping thread touches these.
    /** Volatile: a caller that stops waiting reads it to decide whether the executor thread has work left. */
    private volatile int state = IDLE;
    /** The operation being run (or failed), or null. */
    private OpRequest current;
    private boolean currentHasDevice;
    private long deadlineNs;
    private Logger currentTrace;
    private long tracedSinceNs;
    /** A group's next member to consider for its collective plans. */
    private int nextMember;
    /** Whether the current operation's plans all started: a single one's, or a group's point-to-point plan. */
    private boolean lastPlanStarted;
    /** The running plan's operations, for the timeout message and the listeners. */
    private OpRequest[] planMembers;
    /** The running plan's algorithm, for the listeners. */
    private String planAlgorithm;
    private long planStartNs;
    /** The clock when the current operation started. */
    private long opStartNs;
    private int iterations;
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
    /** Passes over the running plan that progressed nothing (see {@link #progressPlan}). */
    private int idlePasses;
    /** The clock when the running plan last found nothing to do. */
    private long lastIdleNs;
    /** EXPLAINING, LINGERING: what the current operation fails with. */
    private JcclException pendingError;
    /** LINGERING: whether to fail the queued operations too if an abort was requested meanwhile. */
    private boolean drainIfAborted;
    /** EXPLAINING: until when a report from a peer may explain the failure. */
    private long explainUntilNs;
    /** CLOSING: what the queue was drained with. */
    private JcclException shutdownError;

    // Bindings for single operations, reused.
    private final MemorySegment[] oneSend = new MemorySegment[1];
    private final MemorySegment[] oneRecv = new MemorySegment[1];
    private final long[] oneTag = new long[1];
    private final int[] oneElementBytes = new int[1];
    private final Reducer[] oneReducer = new Reducer[1];
    private final OpRequest[] oneOp = new OpRequest[1];

    /** This communicator's own operation listeners (the JVM-wide ones are in {@link OperationListeners}). */
    private volatile OperationListener[] listeners = new OperationListener[0];
    /** The transport tag reported to listeners: computed on first use, on the executor thread. */
    private String transportTag;

    /**
     * @param clock   where every time comes from (the system's in thread mode)
     * @param stepped true: no thread, the caller calls {@link #doWork()}; heartbeats are sent from there too
     */
    CommExecutor(CommImpl comm, int rank, int size, CommConfig.Resolved config, PeerLinks links,
                 ExecutorSignal signal, Tuner tuner, long stagingSlotBytes, boolean transportsSignal, long spinNs,
                 long idleSpinNs, String name, String[] peerNames, NanoClock clock, boolean stepped) {
        this.comm = comm;
        this.rank = rank;
        this.size = size;
        this.config = config;
        this.links = links;
        this.signal = signal;
        this.tuner = tuner;
        this.clock = clock;
        this.stepped = stepped;
        this.control = new ControlPlane(rank, links, arena, peerNames, config.peerTimeout().toNanos(), clock,
                stepped);
        this.staging = new StagingPool(stagingSlotBytes);
        this.staging.preallocate(PREALLOCATED_STAGING_SLOTS);
        this.runner = new PlanRunner(rank, links, staging, peerNames);
        this.running = runner;
        this.queue = new OpQueue<>(config.maxPendingOps());
        this.opTimeoutNs = config.opTimeout().toNanos();
        this.p2pSendSeq = new long[size];
        this.p2pRecvSeq = new long[size];
        if (stepped) {
            this.idle = null;
            this.thread = null;
        } else {
            this.idle = new ExecutorIdle(signal, clock, transportsSignal, spinNs, idleSpinNs);
            this.thread = Thread.ofPlatform().daemon().name("jccl-" + name + "-r" + rank).unstarted(this);
            signal.owner(thread);
        }
    }

    /**
     * Joins the ranks of one {@code Communicator.local} call, all connected by the in-JVM transport: from now on
     * every collective announces itself to them, and all-reduces with {@link Algorithm#AUTO} read the peers' buffers
     * in place ({@link DirectAllReduce}). Before {@link #start()}.
     */
    void joinDirectGroup(DirectGroup group) {
        directGroup = group;
        direct = new DirectAllReduce(group, rank, clock);
        group.join(rank, signal);
    }

    /**
     * Every rank of the communicator is on this host and maps the others' box lines (agreed by all when it was
     * created): from now on every collective announces itself there, and all-reduces of a few bytes with {@link
     * Algorithm#AUTO} run through them ({@link BoxAllReduce}). Before {@link #start()}.
     */
    void joinBox(BoxAllReduce allReduce) {
        box = allReduce;
        if (config.algorithm() == Algorithm.AUTO && tuner.singleCopyMaxBytes() > 0) {
            singleCopyChoice = new SingleCopyChoice(rank, allReduce.ownLines(), allReduce.peerLines());
        }
    }

    /** @return the executor's thread, or null when the caller steps it */
    Thread thread() {
        return thread;
    }

    boolean stepped() {
        return stepped;
    }

    synchronized void addListener(OperationListener listener) {
        OperationListener[] now = listeners;
        OperationListener[] next = Arrays.copyOf(now, now.length + 1);
        next[now.length] = listener;
        listeners = next;
    }

    synchronized void removeListener(OperationListener listener) {
        listeners = OperationListeners.without(listeners, listener);
    }

    /** Posts the control plane's receives and, in thread mode, starts the thread. */
    void start() {
        control.start();
        if (thread != null) {
            if (links.transports.size() == 1 && links.transports.getFirst().awaitProgress(0)) {
                waitTransport = links.transports.getFirst();   // it can block on what its peers signal
                waitTransportPollNs = waitTransport.pollBeforeAwaitNs();
            }
            thread.start();
        }
    }

    JcclException failure() {
        return failure;
    }

    /** @return the operation's position in issue order, or -1 when the queue is full */
    long offer(OpRequest op) {
        long position = queue.offer(op);
        if (position >= 0 && wakeOnOffer) {
            signal.wake();
        }
        return position;
    }

    /**
     * Fails operations that were queued after this executor drained the queue for the last time: an issuing
     * thread that passed the open check just before close calls this once it sees the executor terminated.
     * Synchronized because the queue has one consumer: after termination, whoever calls this.
     */
    synchronized void failStranded() {
        JcclException e = endError;
        drainQueue(e != null ? e : new JcclException(ErrorCode.INVALID_USAGE, "the communicator is closed"));
    }

    /** Tests: this rank stops sending heartbeats and reports, as a hung process would. */
    void silenceForTests() {
        control.stopSending();
    }

    void requestClose() {
        closeRequested = true;
        signal.wake();
    }

    void requestAbort() {
        abortRequested = true;
        signal.wake();
    }

    boolean awaitTermination(long timeoutMs) {
        try {
            return terminated.await(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    boolean isTerminated() {
        return terminated.getCount() == 0;
    }

    // ---- Thread mode ----

    @Override
    public void run() {
        TimerSlack.setForCurrentThread(TIMER_SLACK_NS);
        while (state != TERMINATED) {
            if (waitingCallers.get() > 0 || callersTakeTheirOwn() || !tryDrive()) {
                // A caller waiting for an operation drives (caller-driven progress): stay out of its way. The last
                // caller to stop waiting signals when work is left; the bound also lets this thread find, while
                // offers do not wake it, an operation that no caller waits for. The transports' progress signals
                // are the driving callers' business and do not wake this thread (ExecutorSignal).
                parkWatching();
                idle.reset();
                continue;
            }
            int work;
            boolean sleep = false;
            try {
                work = doWork();
                sleep = work == 0 && state == RUNNING && waitTransport != null && idle.wouldPark()
                        && idle.idleFor(waitTransportPollNs) && waitingCallers.get() == 0;
            } finally {
                stopDriving();
            }
            if (sleep) {
                // Block on what the peers signal (a futex word, sockets) instead of a blind park. Not as the driver:
                // a caller that comes to wait drives at once rather than waiting for this thread to be woken and
                // scheduled (it also wakes this one, ExecutorSignal.signal / callerWaiting).
                asleepInTransport = true;   // then look at the callers once more: see callerWaiting
                if (waitingCallers.get() == 0) {
                    signal.awaitIn(waitTransport, Math.min(MAX_TRANSPORT_WAIT_NS, planParkLimitNs()));
                }
                asleepInTransport = false;
                continue;
            }
            if (work > 0) {
                idle.reset();
                watchNs = WATCH_NS;   // this thread found work: look often again
            } else if (state == IDLE) {
                if (wakeOnOffer) {
                    idle.idleWithoutWork(Long.MAX_VALUE);
                } else {
                    watchForOffers();
                }
            } else if (state != TERMINATED) {
                idle.idle(state == RUNNING ? planParkLimitNs() : Long.MAX_VALUE);
            }
        }
    }

    // ---- Caller-driven progress (Progress): one driver at a time, the executor thread or a waiting caller ----

    /** The longest the executor thread waits in a transport at once (peer death wakes nobody: look again). */
    private static final long MAX_TRANSPORT_WAIT_NS = 10_000_000;
    /**
     * The transport the executor thread can block on while an operation waits for peers (the only transport the
     * communicator uses, when it supports {@link io.jccl.net.NetTransport#awaitProgress}); null: it parks.
     */
    private io.jccl.net.NetTransport waitTransport;
    /**
     * How long the executor polls (parking briefly, {@link ExecutorIdle#idle}) after its spin before it sleeps in
     * {@link #waitTransport} ({@link io.jccl.net.NetTransport#pollBeforeAwaitNs}).
     */
    private long waitTransportPollNs;

    /**
     * How long the executor thread parks at most while a caller drives, or while offers do not wake it: the longest
     * an operation that nobody waits for then waits before this thread starts it. Each look is a wake-up that takes
     * a core from a spinning caller on a small host: 200 µs measured slower than 1 ms (docs/performance.md).
     */
    static final long WATCH_NS = 1_000_000;
    /**
     * The longest the watch grows to while its looks find callers driving their own operations: each look is a
     * context switch on a core where a caller spins, and at 1 ms they took about 7% of a 2-rank 8 B shm all-reduce's
     * time in stalls of 10-100 µs (docs/performance.md). The cost: an operation issued and then left alone after a
     * run of awaited ones starts up to twice this late, once (it completes without a waiter, so offers wake again).
     */
    static final long MAX_WATCH_NS = 4_000_000;
    /** The current watch: {@link #WATCH_NS}, doubled by each look that found nothing for this thread. */
    private long watchNs = WATCH_NS;
    /** Without offers for this long, the executor thread goes back to being woken by each offer and parks long. */
    static final long WATCH_LIMIT_NS = 2_000_000;

    /**
     * Whether {@link #offer} wakes the executor thread. Waking costs a system call and a context switch per
     * operation, and while callers wait for their operations right after issuing them (the blocking pattern) the
     * woken thread only finds the caller driving: on two cores that switch cost a 2-rank 8 B TCP all-reduce more
     * than half its time. So when the last operation completed had a caller waiting for it, offers do not wake;
     * the executor thread then looks at the queue every {@link #WATCH_NS} ({@link #watchForOffers}) and starts
     * what no caller took. When the last operation completed without a waiter (issued and left to run), or after
     * {@link #WATCH_LIMIT_NS} without offers, every offer wakes it again.
     */
    private volatile boolean wakeOnOffer = true;
    /** The queue's claim count when {@link #watchForOffers} last saw it change, and when. */
    private long watchedClaims = -1;
    private long watchedSinceNs;
    /** Operations taken from the queue when a look last found it not empty; -1: it was empty. */
    private long takenAtLastLook = -1;
    private static final VarHandle DRIVER;

    static {
        try {
            DRIVER = MethodHandles.lookup().findVarHandle(CommExecutor.class, "driver", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The thread stepping the state machine now, or null; set and cleared with a CAS (a happens-before edge). */
    @SuppressWarnings("unused")   // through DRIVER
    private volatile Thread driver;
    /** Set while the executor thread is (about to be) asleep in {@link #waitTransport}. */
    private volatile boolean asleepInTransport;

    /** Callers in {@code await()} wanting to drive: the executor thread steps aside while there are any. */
    private final java.util.concurrent.atomic.AtomicInteger waitingCallers =
            new java.util.concurrent.atomic.AtomicInteger();

    /** The request of the operations run at once by the thread that issues them ({@link #runInline}). */
    private final OpRequest inline = OpRequest.inline();
    /** Inline operations handed over unfinished (their futures are the only thing the fast path allocates). */
    private final java.util.concurrent.atomic.AtomicLong inlineHandOvers = new java.util.concurrent.atomic.AtomicLong();

    /**
     * The fast path of a small collective: when nothing is queued or running and no thread drives, the issuing
     * thread starts the operation itself and drives it for about {@code budgetNs} at most ({@link
     * CommImpl#INLINE_SPIN_NS}, or the configured spin when shorter) —
     * the data goes out at once, with no queue, no hand-over between threads and, when it completes within the
     * budget, nothing allocated: the shared {@link OpFuture#COMPLETED} is returned. Otherwise it hands the
     * operation over unfinished: it gets a future, which the executor thread or a waiting caller completes, as any
     * other. Issue order holds: the operation starts only when every earlier one has completed, and later ones queue
     * behind it (nobody else drives meanwhile, and the queue is looked at with the driver flag held).
     *
     * @param budgetNs how long to drive at most, counted from the 64th pass (0: what is possible at once)
     * @return the operation's future; null when the fast path does not apply (queue it)
     */
    OpFuture runInline(OpKind kind, long count, DataType type, ReduceOp op, int root, MemorySegment send,
                               MemorySegment recv, boolean inPlace, long budgetNs) {
        if (stepped || !DRIVER.compareAndSet(this, (Thread) null, Thread.currentThread())) {
            return null;
        }
        boolean handedOver = false;
        try {
            long claims = queue.claims();
            if (state != IDLE || current != null || failure != null || abortRequested || closeRequested
                    || queue.taken() != claims) {
                return null;
            }
            if (claims != handOverEpoch) {
                handOverEpoch = claims;
                handOversInEpoch = 0;
            } else if (handOversInEpoch == MAX_HAND_OVERS_PER_EPOCH) {
                return null;   // no order key left between two queued operations: queue this one
            }
            OpRequest r = inline;
            r.resetCollective(kind, count, type, op, root, send, recv, inPlace);
            startOperation(r);
            long startNs = 0;
            int passes = 0;
            while (r.inlineOutcome == OpRequest.RUNNING) {
                int work = step();
                if ((++passes & 63) != 0) {
                    if (work == 0) {
                        Thread.onSpinWait();
                    }
                    continue;
                }
                long now = System.nanoTime();   // not before 64 passes: a small operation is done by then
                if (startNs == 0) {
                    startNs = now;
                } else if (now - startNs >= budgetNs) {
                    break;
                }
            }
            if (r.inlineOutcome == OpRequest.DONE) {
                r.clearInline();
                return OpFuture.COMPLETED;
            }
            OpFuture f = comm.newFuture(CommImpl.dataBytes(count, type));
            if (r.inlineOutcome == OpRequest.FAILED) {
                r.clearInline();
                f.fail(r.inlineError);
                return f;
            }
            f.position(handOverOrder(claims, ++handOversInEpoch));
            r.future = f;   // published to the next driver by the release of the driver flag below
            handedOver = true;
            inlineHandOvers.incrementAndGet();
            return f;
        } finally {
            stopDriving();
            if (handedOver) {
                // This thread carries it on unless its caller comes to wait: woken now, since progress signals no
                // longer end its watching parks (it would find the operation only at its next look, up to
                // MAX_WATCH_NS later, and an issuer that does not wait at once would lose that much).
                signal.wake();
            }
        }
    }

    /**
     * Order keys of issued operations, for {@code synchronize()} (the latest issued is the one to wait for): an
     * operation queued at position {@code p} has {@code (p + 1) << ORDER_SHIFT}; one handed over unfinished by its
     * issuing thread, when {@code claims} operations had ever been queued, has {@code claims << ORDER_SHIFT} plus its
     * number among those handed over since (1, 2, ...): after every operation queued before it, before every one
     * queued after. 2^43 queued operations fit, 2^20 - 1 hand-overs between two of them.
     */
    static final int ORDER_SHIFT = 20;
    private static final long MAX_HAND_OVERS_PER_EPOCH = (1L << ORDER_SHIFT) - 1;
    /** The queue's claims when the last inline operation started, and how many were handed over since it moved. */
    private long handOverEpoch = -1;
    private long handOversInEpoch;

    /** @return the order key of an operation queued at {@code position} */
    static long queuedOrder(long position) {
        return (position + 1) << ORDER_SHIFT;
    }

    private static long handOverOrder(long claims, long handOver) {
        return (claims << ORDER_SHIFT) + handOver;
    }

    /** @return inline operations handed over unfinished so far (tests) */
    long inlineHandOvers() {
        return inlineHandOvers.get();
    }

    @Override
    public boolean tryDrive() {
        return !stepped && DRIVER.compareAndSet(this, (Thread) null, Thread.currentThread());
    }

    @Override
    public int step() {
        if (COUNT_CALLER_ALLOCATION) {
            long before = THREADS.getCurrentThreadAllocatedBytes();
            int work = doWork();
            callerStepAllocatedBytes.addAndGet(THREADS.getCurrentThreadAllocatedBytes() - before);
            return work;
        }
        return doWork();
    }

    /**
     * Tests ({@code -Djccl.test.countCallerAllocation=true}): bytes allocated by the steps callers drove, so that the
     * allocation test sees the state machine's allocation whichever thread runs it. Off: the check folds away.
     */
    static final boolean COUNT_CALLER_ALLOCATION = Boolean.getBoolean("jccl.test.countCallerAllocation");
    private static final com.sun.management.ThreadMXBean THREADS = COUNT_CALLER_ALLOCATION
            ? (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean() : null;
    private final java.util.concurrent.atomic.AtomicLong callerStepAllocatedBytes =
            new java.util.concurrent.atomic.AtomicLong();

    /** @return bytes allocated by steps callers drove (only counted with the test property set) */
    long callerStepAllocatedBytes() {
        return callerStepAllocatedBytes.get();
    }

    @Override
    public void stopDriving() {
        DRIVER.setRelease(this, (Thread) null);
    }

    @Override
    public boolean isDrivenByCurrentThread() {
        return driver == Thread.currentThread();
    }

    @Override
    public void callerWaiting(boolean waiting) {
        if (waiting) {
            if (waitingCallers.getAndIncrement() == 0 && waitTransport != null && asleepInTransport) {
                // The executor thread is asleep in the transport: woken now, it steps aside, rather than later by the
                // very data this caller is about to take. (It sets the flag, then reads the count; this caller
                // counts itself, then reads the flag: one of the two sees the other. Not asleep: no fences paid.)
                waitTransport.wakeUp();
            }
        } else if (waitingCallers.decrementAndGet() == 0 && (state != IDLE || !queue.isEmpty())) {
            signal.wake();   // the executor thread carries on with what nobody waits for
        }
    }

    /** Tests: @return whether {@link #offer} wakes the executor thread now */
    boolean wakesOnOffer() {
        return wakeOnOffer;
    }

    /**
     * The executor thread, idle while offers do not wake it: parks for the current watch and looks again; after
     * {@link #WATCH_LIMIT_NS} without an offer it asks to be woken by the next one (then the loop polls the queue
     * once more before it parks, so an offer that did not see the request is not missed).
     */
    private void watchForOffers() {
        if (offersStopped()) {
            wakeOnOffer = true;
            watchNs = WATCH_NS;
            return;
        }
        parkWatching();
    }

    /** @return whether nothing was offered for {@link #WATCH_LIMIT_NS}, as this thread's looks have seen the queue */
    private boolean offersStopped() {
        long claims = queue.claims();
        long now = clock.nanoTime();
        if (claims != watchedClaims) {
            watchedClaims = claims;
            watchedSinceNs = now;
            return false;
        }
        return now - watchedSinceNs >= WATCH_LIMIT_NS;
    }

    /** Parks for the current watch, then lengthens it: the look that ends it found nothing unless it finds work. */
    private void parkWatching() {
        signal.parkWatching(watchNs);
        watchNs = Math.min(MAX_WATCH_NS, 2 * watchNs);
    }

    /**
     * Whether a look of the executor thread, while callers drive their own operations (offers do not wake it), finds
     * nothing for it: no operation runs, none has waited in the queue since the previous look, and operations are
     * still being offered. It then parks again without taking the driver flag. Taken at the moment a caller comes to
     * wait, the flag made that caller wait for this thread, which a small host may preempt right after waking it: the
     * caller handed over after its spin and blocked, and both paid a wake-up (docs/performance.md).
     */
    private boolean callersTakeTheirOwn() {
        if (wakeOnOffer || state != IDLE || offersStopped()) {
            return false;   // stopped offers: watchForOffers asks to be woken by them again
        }
        if (queue.isEmpty()) {
            takenAtLastLook = -1;
            return true;
        }
        long taken = queue.taken();
        if (taken == takenAtLastLook) {
            return false;   // an operation has waited since the last look: nobody takes it
        }
        takenAtLastLook = taken;
        return true;
    }

    /** @return how long the thread may park while the running plan waits: until the operation's deadline */
    private long planParkLimitNs() {
        return opTimeoutNs > 0 ? deadlineNs - lastIdleNs : Long.MAX_VALUE;
    }

    // ---- The state machine ----

    /**
     * One bounded slice of work; never blocks (but for a split in thread mode). Call from one thread at a time:
     * the executor's own, or the caller that steps it.
     *
     * @return how much work was done: 0 when nothing progressed (time must pass or a message arrive)
     */
    int doWork() {
        try {
            int work = 0;
            if (stepped && control.heartbeatIfDue(clock.nanoTime())) {
                work = 1;
            }
            return work + switch (state) {
                case RUNNING -> stepRunning();
                case IDLE -> stepIdle();
                case EXPLAINING -> stepExplaining();
                case LINGERING -> stepLingering();
                case CLOSING -> stepClosing();
                default -> 0;
            };
        } catch (Throwable t) {
            failUnexpectedly(t);
            return 1;
        }
    }

    /**
     * @return when something time-based is next due if nothing arrives before (an operation's deadline, a liveness
     *         check, a heartbeat, the end of a wait for reports), on this executor's clock; {@link Long#MAX_VALUE}
     *         if nothing is
     */
    long nextDeadlineNs() {
        long next = switch (state) {
            case IDLE -> failure == null ? control.nextLivenessCheckNs() : Long.MAX_VALUE;
            case RUNNING -> Math.min(opTimeoutNs > 0 ? deadlineNs : Long.MAX_VALUE, control.nextLivenessCheckNs());
            case EXPLAINING -> explainUntilNs;
            case LINGERING, CLOSING -> control.reportsLingerUntilNs();
            default -> Long.MAX_VALUE;
        };
        return state == TERMINATED ? next : Math.min(next, control.nextHeartbeatNs());
    }

    private int stepIdle() {
        OpRequest op = queue.poll();
        if (op == null) {
            if (abortRequested || closeRequested) {
                startShutdown();
                return 1;
            }
            if (failure == null) {
                JcclException remote = control.poll();
                if (remote != null) {
                    breakAndFail(remote, false, false);
                    return 1;
                }
                JcclException dead = control.liveness(clock.nanoTime());
                if (dead != null) {
                    breakAndFail(dead, true, false);
                    return 1;
                }
            }
            return 0;
        }
        if (abortRequested) {
            fail(op, aborted());
            drainQueue(aborted());
            startShutdown();
            return 1;
        }
        JcclException broken = failure;
        if (broken != null) {
            fail(op, brokenBy(broken));
            return 1;
        }
        startOperation(op);
        return 1;
    }

    private void startOperation(OpRequest op) {
        current = op;
        long now = clock.nanoTime();
        opStartNs = now;
        deadlineNs = opTimeoutNs > 0 ? now + opTimeoutNs : Long.MAX_VALUE;
        currentTrace = op.type == OpRequest.Type.P2P ? P2P_LOG : LOG;
        tracedSinceNs = currentTrace.isTraceEnabled() ? traceStart(currentTrace, op) : 0;
        currentHasDevice = hasDeviceBuffers(op);
        nextMember = 0;
        lastPlanStarted = false;
        try {
            if (currentHasDevice) {
                stageIn(op);
            }
            switch (op.type) {
                case COLLECTIVE, P2P, GROUP -> startPlans();
                case SPLIT -> {
                    if (stepped) {
                        throw new JcclException(ErrorCode.INVALID_USAGE, SPLIT_NOT_STEPPED);
                    }
                    runSplit(op);
                    operationDone();
                }
                default -> throw new IllegalStateException("unknown operation type " + op.type);
            }
        } catch (RuntimeException e) {
            operationFailed(e);
        }
    }

    /** Starts the current operation's next plans until one has work left (RUNNING) or none is left (done). */
    private void startPlans() {
        while (startNextPlan()) {
            if (!running.done()) {
                state = RUNNING;
                return;
            }
            planDone();
        }
        operationDone();
    }

    /** @return whether another plan of the current operation started; false when all ran */
    private boolean startNextPlan() {
        OpRequest op = current;
        if (op.type != OpRequest.Type.GROUP) {
            if (lastPlanStarted) {
                return false;
            }
            lastPlanStarted = true;
            startSingle(op);
            return true;
        }
        List<OpRequest> members = op.members;
        while (nextMember < members.size()) {
            OpRequest m = members.get(nextMember++);
            if (m.type == OpRequest.Type.COLLECTIVE) {
                startSingle(m);
                return true;
            }
        }
        if (lastPlanStarted) {
            return false;
        }
        lastPlanStarted = true;
        return startGroupPointToPoint(op);
    }

    private int stepRunning() {
        try {
            if (!progressPlan()) {
                return 0;
            }
            if (running.done()) {
                planDone();
                startPlans();
            }
            return 1;
        } catch (RuntimeException e) {
            operationFailed(e);
            return 1;
        }
    }

    /**
     * One pass over the running plan, then the checks: abort, reports from peers, liveness, the deadline.
     *
     * @return whether the plan progressed
     * @throws ReportedFailure when a peer reported a failure
     * @throws JcclException   when the plan failed, the communicator was aborted, a peer died, or the time is up
     */
    private boolean progressPlan() {
        boolean progressed = running.progress();
        if (abortRequested) {
            throw aborted();
        }
        // Idle passes look at the clock (26 ns on these VMs) every 8th time only: a waiting run then sees its data
        // sooner, and the checks still come within microseconds. Stepped: every pass (simulated time jumps).
        if (progressed ? (++iterations & 255) == 0 : stepped || (++idlePasses & 7) == 0) {
            JcclException remote = control.poll();
            if (remote != null) {
                throw new ReportedFailure(remote);
            }
            long now = clock.nanoTime();
            JcclException dead = control.liveness(now);
            if (dead != null) {
                throw dead;
            }
            if (!progressed) {
                if (opTimeoutNs > 0 && now - deadlineNs >= 0) {
                    throw timedOut();
                }
                lastIdleNs = now;
            }
        }
        return progressed;
    }

    private JcclException timedOut() {
        OpRequest[] members = planMembers;
        String what = members.length == 1 ? members[0].describe()
                : "a group of " + members.length + " operations (" + members[0].describe() + ", ...)";
        return new JcclException(ErrorCode.TIMEOUT, what + " on rank " + rank + " did not complete within "
                + config.opTimeout().toMillis() + " ms; still waiting for " + running.waitingFor());
    }

    /** The current operation's data movement finished: staging back to the device, then the futures. */
    private void operationDone() {
        OpRequest op = current;
        if (currentHasDevice) {
            stageOut(op);
            releaseStaging(op);   // before completing: a waiter may look at the staging right after
        }
        current = null;
        state = IDLE;
        complete(op);
        if (tracedSinceNs != 0) {
            currentTrace.trace("rank {}: done {} in {} us", rank, op.describe(),
                    (clock.nanoTime() - tracedSinceNs) / 1000);
        }
    }

    /** Turns what the current operation threw into the communicator's state, as a rank's failure must. */
    private void operationFailed(RuntimeException e) {
        clearBindings();
        if (e instanceof ReportedFailure reported) {
            breakAndFail(reported.error, false, false);
        } else if (e instanceof ParentFailure parent) {
            failLocally(parent.error);
        } else if (e instanceof JcclException je) {
            failLocally(je);
        } else {
            breakAndFail(new JcclException(ErrorCode.INTERNAL_ERROR, "unexpected failure in "
                    + current.describe() + ": " + e, e), true, false);
        }
    }

    /** The current operation failed on this rank; a vanished peer's failure may have a better explanation. */
    private void failLocally(JcclException e) {
        if (e.code() == ErrorCode.REMOTE_ERROR) {
            pendingError = e;
            explainUntilNs = clock.nanoTime() + EXPLANATION_WAIT_NS;
            state = EXPLAINING;
            stepExplaining();
            return;
        }
        breakAndFail(e, e.code() != ErrorCode.ABORTED || abortRequested, true);
    }

    /** After a peer vanished, a report from another rank may say why: poll for one until the wait ends. */
    private int stepExplaining() {
        if (clock.nanoTime() - explainUntilNs >= 0) {
            JcclException reason = pendingError;
            breakAndFail(reason, reason.code() != ErrorCode.ABORTED || abortRequested, true);
            return 1;
        }
        JcclException remote = control.poll();
        if (remote != null) {
            breakAndFail(remote, false, false);
            return 1;
        }
        return 0;
    }

    /**
     * Breaks the communicator with {@code e} (unless it is broken already) and fails the current operation, if
     * any, with it. When peers are told, their reports first get a moment to leave (LINGERING), before the data
     * connections close.
     *
     * @param drainIfAborted whether to fail the queued operations too when an abort was requested
     */
    private void breakAndFail(JcclException e, boolean tellPeers, boolean drainIfAborted) {
        pendingError = e;
        this.drainIfAborted = drainIfAborted;
        if (failure == null) {
            failure = e;
            if (tellPeers) {
                control.broadcast(e.code(), e.code() == ErrorCode.ABORTED ? "rank " + rank
                        + " aborted its communicator" : e.detail());
                state = LINGERING;
                stepLingering();
                return;
            }
            dropData(e);
        }
        failCurrent();
    }

    private int stepLingering() {
        if (!control.reportsSettled(clock.nanoTime())) {
            return 0;
        }
        dropData(failure);
        failCurrent();
        return 1;
    }

    /** The communicator broke: no peer may write into user memory any more. */
    private void dropData(JcclException e) {
        running.abandon();
        links.closeData();
        if (e.code() != ErrorCode.ABORTED) {
            LOG.warn("rank {}: communicator failed: {}", rank, e.getMessage());
        }
    }

    private void failCurrent() {
        OpRequest op = current;
        JcclException e = pendingError;
        current = null;
        pendingError = null;
        state = IDLE;
        if (op != null) {
            fail(op, e);
            if (drainIfAborted && abortRequested) {
                drainQueue(aborted());
            }
        }
    }

    private void startShutdown() {
        JcclException end = abortRequested ? aborted()
                : new JcclException(ErrorCode.INVALID_USAGE, "the communicator is closed");
        shutdownError = end;
        drainQueue(end);
        if (abortRequested && failure == null) {
            failure = end;
            control.broadcast(ErrorCode.ABORTED, "rank " + rank + " aborted its communicator");
        } else if (!abortRequested && failure == null) {
            control.sayGoodbye();   // a broken communicator's peers are broken too: no goodbye to wait for
        }
        state = CLOSING;
        stepClosing();
    }

    private int stepClosing() {
        if (!control.reportsSettled(clock.nanoTime())) {
            return 0;
        }
        finishShutdown();
        return 1;
    }

    private void finishShutdown() {
        control.stopSending();
        links.closeAll();   // a stepped communicator's links own no transports: only its connections close
        if (!stepped) {
            // The transports closed above (gracefully: what they still send from this memory went out first). A
            // stepped communicator's transports close later, under their owner: it frees the memory after them
            // (SteppedCommunicator.release).
            staging.close();
            arena.close();
        }
        endError = shutdownError;
        state = TERMINATED;
        terminated.countDown();
        failStranded();   // anything that slipped in while closing; later arrivals are failed by their issuer
    }

    /**
     * Simulations: frees the memory of a communicator that will never step again (a crashed rank, a run cut short),
     * without telling anyone or closing its connections. Nothing may use it afterwards.
     */
    void releaseAbandoned() {
        if (state != TERMINATED) {
            state = TERMINATED;
            terminated.countDown();
        }
        if (arena.scope().isAlive()) {
            staging.close();
            arena.close();
        }
    }

    /** A bug or an Error escaped a step: the communicator fails and shuts down at once, without reports. */
    private void failUnexpectedly(Throwable t) {
        LOG.error("rank {}: the communicator thread failed unexpectedly", rank, t);
        JcclException internal = new JcclException(ErrorCode.INTERNAL_ERROR, "the communicator thread failed: " + t,
                t);
        failure = internal;
        if (state == TERMINATED) {
            return;
        }
        try {
            OpRequest op = current;
            current = null;
            if (op != null) {
                if (running == direct) {
                    direct.abandon();   // before the future fails: peers may be reading its buffers
                }
                fail(op, internal);
            }
            shutdownError = abortRequested ? aborted()
                    : new JcclException(ErrorCode.INVALID_USAGE, "the communicator is closed");
            drainQueue(shutdownError);
            finishShutdown();
        } catch (Throwable again) {
            LOG.error("rank {}: shutting the communicator down failed", rank, again);
            state = TERMINATED;
            terminated.countDown();
        }
    }

    // ---- Device buffers (see DeviceArgs): staged here, when the operation runs ----

    private static boolean hasDeviceBuffers(OpRequest op) {
        if (op.type == OpRequest.Type.GROUP) {
            for (OpRequest m : op.members) {
                if (m.device != null) {
                    return true;
                }
            }
            return false;
        }
        return op.device != null;
    }

    /** Copies device inputs into host staging before the plan runs (a failure breaks the communicator). */
    private void stageIn(OpRequest op) {
        if (op.type == OpRequest.Type.GROUP) {
            for (OpRequest m : op.members) {
                if (m.device != null) {
                    m.device.stageIn(rank);
                }
            }
        } else {
            op.device.stageIn(rank);
        }
    }

    /** Copies outputs back into device memory, before the futures complete. */
    private void stageOut(OpRequest op) {
        if (op.type == OpRequest.Type.GROUP) {
            for (OpRequest m : op.members) {
                if (m.device != null) {
                    m.device.stageOut(rank);
                }
            }
        } else {
            op.device.stageOut(rank);
        }
    }

    /** Returns every staging lease (again: a no-op), whatever happened; the operation's outcome is decided. */
    private void releaseStaging(OpRequest op) {
        for (OpRequest m : op.type == OpRequest.Type.GROUP ? op.members : List.of(op)) {
            if (m.device != null) {
                try {
                    m.device.release();
                } catch (RuntimeException e) {
                    LOG.warn("rank {}: returning host staging of {} failed", rank, m.describe(), e);
                }
            }
        }
    }

    /** TRACE (COLL, P2P): an operation starts; @return the time it started, never 0 */
    private long traceStart(Logger trace, OpRequest op) {
        trace.trace("rank {}: start {}", rank, op.describe());
        return clock.nanoTime() | 1;
    }

    private JcclException aborted() {
        return new JcclException(ErrorCode.ABORTED, "the communicator (rank " + rank + ") was aborted");
    }

    private static JcclException brokenBy(JcclException cause) {
        return new JcclException(cause.code(), "the communicator failed earlier: " + cause.detail(), cause);
    }

    private void complete(OpRequest op) {
        if (op.future == null) {
            // Run by its issuing thread, which is still at it: it returns the shared completed future. Offers are
            // left as they wake: this thread may be parked until one does (see wakeOnOffer).
            op.inlineOutcome = OpRequest.DONE;
            return;
        }
        boolean awaited = op.future.awaited();
        if (op.type == OpRequest.Type.GROUP) {
            for (OpRequest m : op.members) {
                awaited |= m.future.awaited();
                m.future.complete();
            }
        }
        if (thread != null && wakeOnOffer == awaited) {
            wakeOnOffer = !awaited;   // a caller waited: it will drive the next one too (see wakeOnOffer)
        }
        op.future.complete();
    }

    /** Fails an operation; its staging goes back first (its data connections are closed by then). */
    private void fail(OpRequest op, JcclException e) {
        if (hasDeviceBuffers(op)) {
            releaseStaging(op);
        }
        if (op.type == OpRequest.Type.GROUP) {
            for (OpRequest m : op.members) {
                m.future.fail(e);
            }
        }
        if (op.splitResult != null) {
            op.splitResult.completeExceptionally(e);
        }
        if (op.future == null) {
            op.inlineError = e;   // its issuing thread, still running it, returns a failed future
            op.inlineOutcome = OpRequest.FAILED;
            return;
        }
        op.future.fail(e);
    }

    private void drainQueue(JcclException e) {
        OpRequest op;
        while ((op = queue.poll()) != null) {
            fail(op, e);
        }
    }

    // ---- Plans ----

    private void startSingle(OpRequest op) {
        long seq = collectiveSeq;
        long tag = nextTag(op);
        if (box != null && op.type == OpRequest.Type.COLLECTIVE) {
            // Decided by what every rank has in common (the host-wide box, kind, configured algorithm, count, type):
            // ranks that disagree see each other's calls in the box lines and fail instead of waiting.
            if (op.kind == OpKind.ALL_REDUCE && config.algorithm() == Algorithm.AUTO
                    && BoxAllReduce.fits(op.count * elementBytes(op))) {
                startBox(op, seq, tag);
                return;
            }
            box.announce(seq, tag);
        }
        if (directGroup != null && op.type == OpRequest.Type.COLLECTIVE) {
            directGroup.announce(rank, seq, tag);
            // Decided by what every rank has in common (group, kind, configured algorithm), never by the count or
            // the buffers: ranks that disagree must all reach the fingerprint check rather than wait on each other.
            if (op.kind == OpKind.ALL_REDUCE && config.algorithm() == Algorithm.AUTO) {
                startDirect(op, seq, tag);
                return;
            }
        }
        oneSend[0] = op.send;
        oneRecv[0] = op.recv;
        oneTag[0] = tag;
        oneElementBytes[0] = elementBytes(op);
        oneReducer[0] = reducer(op);
        oneOp[0] = op;
        planStartNs = planStartNs(op);
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

    /** @return when {@code op}'s plan starts: the operation's start, unless staging or a group member ran first */
    private long planStartNs(OpRequest op) {
        return op == current && !currentHasDevice ? opStartNs : clock.nanoTime();
    }

    /** Starts an all-reduce through the box lines (its device buffers are staged by now). */
    private void startBox(OpRequest op, long seq, long tag) {
        runInsteadOfPlan(box, BoxAllReduce.ALGORITHM, op);
        box.start(op, seq, tag, reducer(op));
    }

    /** Starts an all-reduce that reads the peers' buffers in place (its device buffers are staged by now). */
    private void startDirect(OpRequest op, long seq, long tag) {
        runInsteadOfPlan(direct, DirectAllReduce.ALGORITHM, op);
        direct.start(op, seq, tag, reducer(op));
    }

    /** Makes {@code run} the running operation's data movement, reported to listeners as {@code algorithm}. */
    private void runInsteadOfPlan(OpRun run, String algorithm, OpRequest op) {
        oneOp[0] = op;
        planMembers = oneOp;
        planAlgorithm = algorithm;
        planStartNs = planStartNs(op);
        iterations = 0;
        running = run;
    }

    /**
     * A group's point-to-point members run as one plan, one lane per (peer, direction), after its collectives.
     *
     * @return false when the group has none
     */
    private boolean startGroupPointToPoint(OpRequest group) {
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

    private void startPlan(Plan plan, MemorySegment[] sends, MemorySegment[] recvs, long[] tags,
                           int[] elementBytes, Reducer[] reducersByMember, OpRequest[] members) {
        if (plan.stagingBytes() > staging.slotBytes()) {
            throw new JcclException(ErrorCode.INTERNAL_ERROR, "plan needs staging of " + plan.stagingBytes()
                    + " bytes but slots have " + staging.slotBytes());
        }
        planMembers = members;
        iterations = 0;
        running = runner;
        runner.start(plan, sends, recvs, tags, elementBytes, reducersByMember, members);
    }

    /** The running plan finished: its operations' listeners hear of it. */
    private void planDone() {
        if (singleCopyChoice != null && singleCopyChoice.timing()) {
            singleCopyChoice.record(clock.nanoTime() - planStartNs);
        }
        OperationListener[] all = OperationListeners.global();
        OperationListener[] mine = listeners;
        if (all.length > 0 || mine.length > 0) {   // nobody listening: not even the clock is read
            long durationNs = clock.nanoTime() - planStartNs;
            for (OpRequest m : planMembers) {
                report(m, all, mine, planAlgorithm, durationNs);
            }
        }
        clearBindings();
    }

    private void clearBindings() {
        oneSend[0] = null;
        oneRecv[0] = null;
        oneOp[0] = null;
        planMembers = null;
    }

    /** Runs a plan to its end on this thread (a split's exchanges; thread mode only). */
    private void runPlanBlocking(Plan plan, MemorySegment[] sends, MemorySegment[] recvs, long[] tags,
                                 int[] elementBytes, Reducer[] reducersByMember, OpRequest[] members) {
        startPlan(plan, sends, recvs, tags, elementBytes, reducersByMember, members);
        while (!running.done()) {
            if (progressPlan()) {
                idle.reset();
            } else {
                idle.idle(planParkLimitNs());
            }
        }
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

    private static int elementBytes(OpRequest op) {
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

    /** Tells the listeners ({@code all}: the JVM-wide ones, then {@code mine}) that {@code op} moved its data. */
    private void report(OpRequest op, OperationListener[] all, OperationListener[] mine, String algorithm,
                        long durationNs) {
        String transport = transportTag;
        if (transport == null) {
            transport = transportTag = transportTag(links.transportNames);
        }
        long bytes = opBytes(op);
        for (OperationListener l : all) {
            notify(l, op, algorithm, transport, bytes, durationNs);
        }
        for (OperationListener l : mine) {
            notify(l, op, algorithm, transport, bytes, durationNs);
        }
    }

    private void notify(OperationListener l, OpRequest op, String algorithm, String transport, long bytes,
                        long durationNs) {
        try {
            l.operationCompleted(comm, op.kind, op.dataType, algorithm, transport, bytes, durationNs);
        } catch (RuntimeException e) {
            LOG.warn("rank {}: operation listener {} failed", rank, l, e);
        }
    }

    /** The distinct transport names to peers, sorted and joined by {@code +}; {@code self} when there are none. */
    static String transportTag(String[] transportNames) {
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        for (String n : transportNames) {
            if (n != null) {
                names.add(n);
            }
        }
        return names.isEmpty() ? "self" : String.join("+", names);
    }

    /** An operation's size as listeners see it: count × element size, × ranks for the gathering collectives. */
    private long opBytes(OpRequest op) {
        long bytes = op.count * elementBytes(op);
        if (op.kind == OpKind.ALL_GATHER || op.kind == OpKind.REDUCE_SCATTER || op.kind == OpKind.ALL_TO_ALL) {
            bytes *= size;
        }
        return bytes;
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

    // ---- Split ----

    private void runSplit(OpRequest op) {
        long splitSeq = collectiveSeq;
        MemorySegment mine = arena.allocate(8);
        MemorySegment all = arena.allocate(8L * size);
        mine.set(ValueLayout.JAVA_INT, 0, op.color);
        mine.set(ValueLayout.JAVA_INT, 4, op.key);
        internalAllGather(mine, all, 8, op);
        List<int[]> group = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            int color = all.get(ValueLayout.JAVA_INT, 8L * r);
            if (op.color != Communicator.SPLIT_NO_COLOR && color == op.color) {
                group.add(new int[] {all.get(ValueLayout.JAVA_INT, 8L * r + 4), r});
            }
        }
        group.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
        int[] members = group.stream().mapToInt(a -> a[1]).toArray();
        byte[] childSecret = comm.shrinkRendezvous().derive("split " + splitSeq + " color " + op.color);
        SubgroupBootstrap bootstrap = new SubgroupBootstrap(this, members, op, childSecret);
        if (op.color == Communicator.SPLIT_NO_COLOR) {
            CommInit.participateWithoutJoining(bootstrap);
            op.splitResult.complete(Optional.empty());
            return;
        }
        try {
            CommImpl child = CommInit.create(bootstrap, config, comm.name() + ".c" + op.color);
            op.splitResult.complete(Optional.of(child));
        } catch (ReportedFailure | ParentFailure e) {
            throw e;
        } catch (JcclException e) {
            // The child could not be built; the ranks agreed on that in the status round, so this communicator
            // stays usable.
            op.splitResult.completeExceptionally(e);
        }
    }

    /**
     * All-gather of {@code recordBytes} per rank over this communicator, from the executor thread, within the
     * split operation's deadline.
     */
    void internalAllGather(MemorySegment mine, MemorySegment all, int recordBytes, OpRequest op) {
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
        runPlanBlocking(b.build("ring"), new MemorySegment[] {mine}, new MemorySegment[] {all}, tags,
                new int[] {1}, new Reducer[1], new OpRequest[] {op});
    }

    Arena arena() {
        return arena;
    }

    int rank() {
        return rank;
    }

    int size() {
        return size;
    }

    /** An error another rank reported: it must not be sent around again. */
    static final class ReportedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient JcclException error;

        ReportedFailure(JcclException error) {
            super(error.getMessage(), error, false, false);
            this.error = error;
        }
    }

    /** A failure of this communicator itself while it served a split's exchanges. */
    static final class ParentFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient JcclException error;

        ParentFailure(JcclException error) {
            super(error.getMessage(), error, false, false);
            this.error = error;
        }
    }

    /**
     * The rendezvous of a split: the parent's ranks exchange fixed-size records over the parent; each member
     * reads its group's records in the group's order.
     */
    static final class SubgroupBootstrap implements Bootstrap {
        private final CommExecutor parent;
        private final int[] members;
        private final int myIndex;
        private final OpRequest op;

        private final byte[] communicatorSecret;

        SubgroupBootstrap(CommExecutor parent, int[] members, OpRequest op, byte[] communicatorSecret) {
            this.communicatorSecret = communicatorSecret;
            this.parent = parent;
            this.members = members;
            this.myIndex = Arrays.binarySearch(sortedCopy(members), parent.rank) >= 0 ? indexOf(members, parent.rank)
                    : -1;
            this.op = op;
        }

        private static int[] sortedCopy(int[] a) {
            int[] c = a.clone();
            Arrays.sort(c);
            return c;
        }

        private static int indexOf(int[] a, int v) {
            for (int i = 0; i < a.length; i++) {
                if (a[i] == v) {
                    return i;
                }
            }
            return -1;
        }

        @Override
        public int rank() {
            return myIndex;
        }

        @Override
        public byte[] communicatorSecret() {
            return communicatorSecret.clone();
        }

        @Override
        public int size() {
            return members.length;
        }

        @Override
        public byte[][] allGather(byte[] mineBytes) {
            if (mineBytes.length > SPLIT_RECORD_BYTES - 4) {
                throw new JcclException(ErrorCode.INTERNAL_ERROR, "split record of " + mineBytes.length
                        + " bytes exceeds " + (SPLIT_RECORD_BYTES - 4));
            }
            int n = parent.size;
            try (Arena a = Arena.ofShared()) {
                MemorySegment mine = a.allocate(SPLIT_RECORD_BYTES);
                MemorySegment all = a.allocate((long) SPLIT_RECORD_BYTES * n);
                mine.set(ValueLayout.JAVA_INT, 0, mineBytes.length);
                MemorySegment.copy(mineBytes, 0, mine, ValueLayout.JAVA_BYTE, 4, mineBytes.length);
                try {
                    parent.internalAllGather(mine, all, SPLIT_RECORD_BYTES, op);
                } catch (JcclException e) {
                    throw new ParentFailure(e);
                }
                byte[][] out = new byte[members.length][];
                for (int i = 0; i < members.length; i++) {
                    long base = (long) SPLIT_RECORD_BYTES * members[i];
                    int len = all.get(ValueLayout.JAVA_INT, base);
                    if (len < 0 || len > SPLIT_RECORD_BYTES - 4) {
                        throw new ParentFailure(new JcclException(ErrorCode.INTERNAL_ERROR,
                                "malformed split record from rank " + members[i]));
                    }
                    out[i] = new byte[len];
                    MemorySegment.copy(all, ValueLayout.JAVA_BYTE, base + 4, out[i], 0, len);
                }
                return out;
            }
        }

        @Override
        public void close() {
        }
    }
}
