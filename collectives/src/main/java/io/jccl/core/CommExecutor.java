package io.jccl.core;

import io.jccl.CommConfig;
import io.jccl.DataType;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.metrics.OperationListener;
import io.jccl.plan.OpKind;
import io.jccl.tune.Tuner;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs a communicator's operations, one at a time in queue order. It assigns call numbers (and so the fingerprint
 * tags), picks or reuses a plan, runs it with the {@link PlanRunner} — or, for an all-reduce between the ranks of
 * one {@code Communicator.local} call, reads the peers' buffers in place ({@link DirectAllReduce}) — enforces the
 * operation timeout, watches the control plane, and turns any failure into the communicator's broken state. Its
 * collaborators: {@link PlanLauncher} starts the plans (call numbers, plan choice, buffers), {@link
 * FailureAndShutdown} fails operations, breaks the communicator and shuts it down, {@link ExecutorThread} is the
 * thread that steps it in thread mode, {@link InlineFastPath} lets an issuing thread run a small collective at
 * once, {@link CommSplit} runs a split.
 *
 * <p>It is a state machine that never blocks: {@link #doWork()} does one bounded slice of work and says whether it
 * did any. Normally the communicator's own thread ({@link ExecutorThread}) calls it in a loop and idles between
 * calls that did nothing ({@link ExecutorIdle}); a communicator stepped by its caller ({@link SteppedCommunicator}, for
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
final class CommExecutor implements Progress {
    static final Logger LOG = JcclLog.logger(Subsystem.COLL, CommExecutor.class);
    private static final Logger P2P_LOG = JcclLog.logger(Subsystem.P2P, CommExecutor.class);
    /** Staging slots allocated (and so touched) at creation: what a pipelined operation between a few peers uses. */
    static final int PREALLOCATED_STAGING_SLOTS = 4;
    /** After a peer vanished, how long to wait for a report from another rank that says why. */
    static final long EXPLANATION_WAIT_NS = 100_000_000L;
    /** What a split fails with in a stepped executor. */
    static final String SPLIT_NOT_STEPPED = "split is not supported by the stepped (simulation) executor";

    static final int IDLE = 0;
    static final int RUNNING = 1;
    static final int EXPLAINING = 2;
    static final int LINGERING = 3;
    static final int CLOSING = 4;
    static final int TERMINATED = 5;

    private final CommImpl comm;
    private final int rank;
    private final int size;
    private final CommConfig.Resolved config;
    private final PeerLinks links;
    private final Arena arena = Arena.ofShared();
    private final ControlPlane control;
    private final StagingPool staging;
    private final OperationReporter reporter;
    private final PlanLauncher launcher;
    private final FailureAndShutdown failures;
    private final InlineFastPath inlineFastPath;
    /** What runs the current operation's data movement: the {@link PlanRunner}, or a direct or box all-reduce. */
    OpRun running;
    private final OpQueue<OpRequest> queue;
    private final ExecutorSignal signal;
    private final NanoClock clock;
    /** True when the caller steps this executor ({@link SteppedCommunicator}): no thread, no idling. */
    private final boolean stepped;
    /** The executor's own thread and how it waits; null when stepped. */
    private final ExecutorThread executorThread;
    /** The executor's own thread; null when stepped. */
    private final Thread thread;
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final long opTimeoutNs;

    volatile JcclException failure;
    volatile boolean abortRequested;
    volatile boolean closeRequested;
    /** What operations queued after shutdown fail with. */
    volatile JcclException endError;

    // State of the machine; only the stepping thread touches these.
    /** Volatile: a caller that stops waiting reads it to decide whether the executor thread has work left. */
    volatile int state = IDLE;
    /** The operation being run (or failed), or null. */
    OpRequest current;
    private boolean currentHasDevice;
    private long deadlineNs;
    private Logger currentTrace;
    private long tracedSinceNs;
    /** A group's next member to consider for its collective plans. */
    private int nextMember;
    /** Whether the current operation's plans all started: a single one's, or a group's point-to-point plan. */
    private boolean lastPlanStarted;
    /** The clock when the current operation started. */
    private long opStartNs;
    private int iterations;
    /** Passes over the running plan that progressed nothing (see {@link #progressPlan}). */
    private int idlePasses;
    /** The clock when the running plan last found nothing to do. */
    private long lastIdleNs;

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
        this.clock = clock;
        this.stepped = stepped;
        this.control = new ControlPlane(rank, links, arena, peerNames, config.peerTimeout().toNanos(), clock,
                stepped);
        this.staging = new StagingPool(stagingSlotBytes);
        this.staging.preallocate(PREALLOCATED_STAGING_SLOTS);
        PlanRunner runner = new PlanRunner(rank, links, staging, peerNames);
        this.running = runner;
        this.reporter = new OperationReporter(comm, rank, size, links.transportNames, clock);
        this.launcher = new PlanLauncher(this, rank, size, config, tuner, staging, runner, clock, reporter);
        this.failures = new FailureAndShutdown(this, rank, links, control, clock, staging, arena, launcher);
        this.queue = new OpQueue<>(config.maxPendingOps());
        this.opTimeoutNs = config.opTimeout().toNanos();
        this.inlineFastPath = new InlineFastPath(this, comm, queue, signal);
        if (stepped) {
            this.executorThread = null;
            this.thread = null;
        } else {
            this.executorThread = new ExecutorThread(this, queue, signal, clock, transportsSignal, spinNs,
                    idleSpinNs, "jccl-" + name + "-r" + rank);
            this.thread = executorThread.thread();
        }
    }

    /**
     * Joins the ranks of one {@code Communicator.local} call, all connected by the in-JVM transport: from now on
     * every collective announces itself to them, and all-reduces with {@link io.jccl.Algorithm#AUTO} read the peers'
     * buffers in place ({@link DirectAllReduce}). Before {@link #start()}.
     */
    void joinDirectGroup(DirectGroup group) {
        launcher.joinDirectGroup(group, signal);
    }

    /**
     * Every rank of the communicator is on this host and maps the others' box lines (agreed by all when it was
     * created): from now on every collective announces itself there, and all-reduces of a few bytes with {@link
     * io.jccl.Algorithm#AUTO} run through them ({@link BoxAllReduce}). Before {@link #start()}.
     */
    void joinBox(BoxAllReduce allReduce) {
        launcher.joinBox(allReduce);
    }

    /** @return the executor's thread, or null when the caller steps it */
    Thread thread() {
        return thread;
    }

    boolean stepped() {
        return stepped;
    }

    void addListener(OperationListener listener) {
        reporter.addListener(listener);
    }

    void removeListener(OperationListener listener) {
        reporter.removeListener(listener);
    }

    /** Posts the control plane's receives and, in thread mode, starts the thread. */
    void start() {
        control.start();
        if (executorThread != null) {
            executorThread.start(links);
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

    /** Ends the state machine: nothing runs any more, and whoever awaits termination returns. */
    void terminate() {
        state = TERMINATED;
        terminated.countDown();
    }

    // ---- Caller-driven progress (Progress): one driver at a time, the executor thread or a waiting caller ----

    /**
     * Whether {@link #offer} wakes the executor thread. Waking costs a system call and a context switch per
     * operation, and while callers wait for their operations right after issuing them (the blocking pattern) the
     * woken thread only finds the caller driving: on two cores that switch cost a 2-rank 8 B TCP all-reduce more
     * than half its time. So when the last operation completed had a caller waiting for it, offers do not wake;
     * the executor thread then looks at the queue every {@link ExecutorThread#WATCH_NS} ({@link ExecutorThread}) and
     * starts what no caller took. When the last operation completed without a waiter (issued and left to run), or
     * after {@link ExecutorThread#WATCH_LIMIT_NS} without offers, every offer wakes it again.
     */
    volatile boolean wakeOnOffer = true;
    private static final VarHandle DRIVER = VarHandles.field(MethodHandles.lookup(), CommExecutor.class, "driver",
            Thread.class);

    /** The thread stepping the state machine now, or null; set and cleared with a CAS (a happens-before edge). */
    @SuppressWarnings("unused")   // through DRIVER
    private volatile Thread driver;

    /** Callers in {@code await()} wanting to drive: the executor thread steps aside while there are any. */
    final java.util.concurrent.atomic.AtomicInteger waitingCallers =
            new java.util.concurrent.atomic.AtomicInteger();

    /**
     * The fast path of a small collective, run by its issuing thread: see {@link InlineFastPath#run}.
     *
     * @return the operation's future; null when the fast path does not apply (queue it)
     */
    OpFuture runInline(OpKind kind, long count, DataType type, ReduceOp op, int root, MemorySegment send,
                       MemorySegment recv, boolean inPlace, long budgetNs) {
        return inlineFastPath.run(kind, count, type, op, root, send, recv, inPlace, budgetNs);
    }

    /**
     * Order keys of issued operations, for {@code synchronize()} (the latest issued is the one to wait for): an
     * operation queued at position {@code p} has {@code (p + 1) << ORDER_SHIFT}; one handed over unfinished by its
     * issuing thread, when {@code claims} operations had ever been queued, has {@code claims << ORDER_SHIFT} plus its
     * number among those handed over since (1, 2, ...): after every operation queued before it, before every one
     * queued after. 2^43 queued operations fit, 2^20 - 1 hand-overs between two of them.
     */
    static final int ORDER_SHIFT = 20;
    /** How many operations may be handed over unfinished between two queued ones. */
    static final long MAX_HAND_OVERS_PER_EPOCH = (1L << ORDER_SHIFT) - 1;

    /** @return the order key of an operation queued at {@code position} */
    static long queuedOrder(long position) {
        return (position + 1) << ORDER_SHIFT;
    }

    /** @return the order key of the {@code handOver}-th operation handed over since {@code claims} were queued */
    static long handOverOrder(long claims, long handOver) {
        return (claims << ORDER_SHIFT) + handOver;
    }

    /** @return inline operations handed over unfinished so far (tests) */
    long inlineHandOvers() {
        return inlineFastPath.handOvers();
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
            if (waitingCallers.getAndIncrement() == 0 && executorThread != null) {
                executorThread.wakeIfAsleepInTransport();
            }
        } else if (waitingCallers.decrementAndGet() == 0 && (state != IDLE || !queue.isEmpty())) {
            signal.wake();   // the executor thread carries on with what nobody waits for
        }
    }

    /** Tests: @return whether {@link #offer} wakes the executor thread now */
    boolean wakesOnOffer() {
        return wakeOnOffer;
    }

    /** @return how long the thread may park while the running plan waits: until the operation's deadline */
    long planParkLimitNs() {
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
                case EXPLAINING -> failures.stepExplaining();
                case LINGERING -> failures.stepLingering();
                case CLOSING -> failures.stepClosing();
                default -> 0;
            };
        } catch (Throwable t) {
            failures.failUnexpectedly(t);
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
            case EXPLAINING -> failures.explainUntilNs();
            case LINGERING, CLOSING -> control.reportsLingerUntilNs();
            default -> Long.MAX_VALUE;
        };
        return state == TERMINATED ? next : Math.min(next, control.nextHeartbeatNs());
    }

    private int stepIdle() {
        OpRequest op = queue.poll();
        if (op == null) {
            if (abortRequested || closeRequested) {
                failures.startShutdown();
                return 1;
            }
            if (failure == null) {
                JcclException remote = control.poll();
                if (remote != null) {
                    failures.breakAndFail(remote, false, false);
                    return 1;
                }
                JcclException dead = control.liveness(clock.nanoTime());
                if (dead != null) {
                    failures.breakAndFail(dead, true, false);
                    return 1;
                }
            }
            return 0;
        }
        if (abortRequested) {
            fail(op, failures.aborted());
            drainQueue(failures.aborted());
            failures.startShutdown();
            return 1;
        }
        JcclException broken = failure;
        if (broken != null) {
            fail(op, FailureAndShutdown.brokenBy(broken));
            return 1;
        }
        startOperation(op);
        return 1;
    }

    void startOperation(OpRequest op) {
        current = op;
        long now = clock.nanoTime();
        opStartNs = now;
        deadlineNs = opTimeoutNs > 0 ? now + opTimeoutNs : Long.MAX_VALUE;
        currentTrace = op.type == OpRequest.Type.P2P ? P2P_LOG : LOG;
        tracedSinceNs = currentTrace.isTraceEnabled() ? traceStart(currentTrace, op) : 0;
        currentHasDevice = DeviceStaging.hasDeviceBuffers(op);
        nextMember = 0;
        lastPlanStarted = false;
        try {
            if (currentHasDevice) {
                DeviceStaging.stageIn(op, rank);
            }
            switch (op.type) {
                case COLLECTIVE, P2P, GROUP -> startPlans();
                case SPLIT -> {
                    if (stepped) {
                        throw new JcclException(ErrorCode.INVALID_USAGE, SPLIT_NOT_STEPPED);
                    }
                    CommSplit.run(this, comm, config, op, launcher.collectiveSeq());
                    operationDone();
                }
                default -> throw new IllegalStateException("unknown operation type " + op.type);
            }
        } catch (RuntimeException e) {
            failures.operationFailed(e);
        }
    }

    /** Starts the current operation's next plans until one has work left (RUNNING) or none is left (done). */
    private void startPlans() {
        while (startNextPlan()) {
            if (!running.done()) {
                state = RUNNING;
                return;
            }
            launcher.planDone();
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
            launcher.startSingle(op, !currentHasDevice, opStartNs);
            return true;
        }
        List<OpRequest> members = op.members;
        while (nextMember < members.size()) {
            OpRequest m = members.get(nextMember++);
            if (m.type == OpRequest.Type.COLLECTIVE) {
                launcher.startSingle(m, false, opStartNs);
                return true;
            }
        }
        if (lastPlanStarted) {
            return false;
        }
        lastPlanStarted = true;
        return launcher.startGroupPointToPoint(op);
    }

    private int stepRunning() {
        try {
            if (!progressPlan()) {
                return 0;
            }
            if (running.done()) {
                launcher.planDone();
                startPlans();
            }
            return 1;
        } catch (RuntimeException e) {
            failures.operationFailed(e);
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
            throw failures.aborted();
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
        OpRequest[] members = launcher.planMembers();
        String what = members.length == 1 ? members[0].describe()
                : "a group of " + members.length + " operations (" + members[0].describe() + ", ...)";
        return new JcclException(ErrorCode.TIMEOUT, what + " on rank " + rank + " did not complete within "
                + config.opTimeout().toMillis() + " ms; still waiting for " + running.waitingFor());
    }

    /** The current operation's data movement finished: staging back to the device, then the futures. */
    private void operationDone() {
        OpRequest op = current;
        if (currentHasDevice) {
            DeviceStaging.stageOut(op, rank);
            // Before completing: a waiter may look at the staging right after.
            DeviceStaging.releaseStaging(op, rank);
        }
        current = null;
        state = IDLE;
        complete(op);
        if (tracedSinceNs != 0) {
            currentTrace.trace("rank {}: done {} in {} us", rank, op.describe(),
                    (clock.nanoTime() - tracedSinceNs) / 1000);
        }
    }

    /**
     * Simulations: frees the memory of a communicator that will never step again (a crashed rank, a run cut short),
     * without telling anyone or closing its connections. Nothing may use it afterwards.
     */
    void releaseAbandoned() {
        failures.releaseAbandoned();
    }

    /** TRACE (COLL, P2P): an operation starts; @return the time it started, never 0 */
    private long traceStart(Logger trace, OpRequest op) {
        trace.trace("rank {}: start {}", rank, op.describe());
        return clock.nanoTime() | 1;
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
    void fail(OpRequest op, JcclException e) {
        if (DeviceStaging.hasDeviceBuffers(op)) {
            DeviceStaging.releaseStaging(op, rank);
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

    void drainQueue(JcclException e) {
        OpRequest op;
        while ((op = queue.poll()) != null) {
            fail(op, e);
        }
    }

    // ---- Plans ----

    /** Makes {@code run} the current operation's data movement, about to start: {@link PlanLauncher} calls it. */
    void startRun(OpRun run) {
        iterations = 0;
        running = run;
    }

    /** Runs a plan to its end on this thread (a split's exchanges; thread mode only). */
    private void runStartedPlanBlocking() {
        ExecutorIdle idle = executorThread.idle;
        while (!running.done()) {
            if (progressPlan()) {
                idle.reset();
            } else {
                idle.idle(planParkLimitNs());
            }
        }
        launcher.blockingPlanDone();
    }

    /**
     * All-gather of {@code recordBytes} per rank over this communicator, from the executor thread, within the
     * split operation's deadline.
     */
    void internalAllGather(MemorySegment mine, MemorySegment all, int recordBytes, OpRequest op) {
        launcher.startSplitExchange(mine, all, recordBytes, op);
        runStartedPlanBlocking();
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
}
