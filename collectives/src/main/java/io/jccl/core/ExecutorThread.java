package io.jccl.core;

import io.jccl.net.NetTransport;
import org.agrona.concurrent.NanoClock;

/**
 * The thread of a {@link CommExecutor} in thread mode (not stepped by its caller): steps the state machine whenever
 * no waiting caller drives it (caller-driven progress, {@link Progress}), and between steps that did nothing idles
 * ({@link ExecutorIdle}), sleeps in the transport while an operation waits for its peers, or, while callers drive
 * their own operations, only looks at the queue now and then ({@link #WATCH_NS}) instead of being woken by every
 * offer ({@link CommExecutor#offer}).
 */
final class ExecutorThread implements Runnable {
    /** Timer slack of the executor thread: its short polling parks end on time, not up to 50 µs late. */
    static final long TIMER_SLACK_NS = 1_000;
    /** The longest the executor thread waits in a transport at once (peer death wakes nobody: look again). */
    private static final long MAX_TRANSPORT_WAIT_NS = 10_000_000;
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
    /** Without offers for this long, the executor thread goes back to being woken by each offer and parks long. */
    static final long WATCH_LIMIT_NS = 2_000_000;

    private final CommExecutor executor;
    private final OpQueue<OpRequest> queue;
    private final ExecutorSignal signal;
    private final NanoClock clock;
    /** How the thread waits when a step did nothing. */
    final ExecutorIdle idle;
    private final Thread thread;

    /**
     * The transport the executor thread can block on while an operation waits for peers (the only transport the
     * communicator uses, when it supports {@link NetTransport#awaitProgress}); null: it parks.
     */
    private NetTransport waitTransport;
    /**
     * How long the executor polls (parking briefly, {@link ExecutorIdle#idle}) after its spin before it sleeps in
     * {@link #waitTransport} ({@link NetTransport#pollBeforeAwaitNs}).
     */
    private long waitTransportPollNs;
    /** Set while the executor thread is (about to be) asleep in {@link #waitTransport}. */
    private volatile boolean asleepInTransport;

    /** The current watch: {@link #WATCH_NS}, doubled by each look that found nothing for this thread. */
    private long watchNs = WATCH_NS;
    /** The queue's claim count when {@link #watchForOffers} last saw it change, and when. */
    private long watchedClaims = -1;
    private long watchedSinceNs;
    /** Operations taken from the queue when a look last found it not empty; -1: it was empty. */
    private long takenAtLastLook = -1;

    /** @param threadName the name of the (daemon, platform) thread, created unstarted */
    ExecutorThread(CommExecutor executor, OpQueue<OpRequest> queue, ExecutorSignal signal, NanoClock clock,
                   boolean transportsSignal, long spinNs, long idleSpinNs, String threadName) {
        this.executor = executor;
        this.queue = queue;
        this.signal = signal;
        this.clock = clock;
        this.idle = new ExecutorIdle(signal, clock, transportsSignal, spinNs, idleSpinNs);
        this.thread = Thread.ofPlatform().daemon().name(threadName).unstarted(this);
        signal.owner(thread);
    }

    /** @return the executor's thread */
    Thread thread() {
        return thread;
    }

    /** Starts the thread; it sleeps in the transport between polls where the only one there is allows that. */
    void start(PeerLinks links) {
        if (links.transports.size() == 1 && links.transports.getFirst().awaitProgress(0)) {
            waitTransport = links.transports.getFirst();   // it can block on what its peers signal
            waitTransportPollNs = waitTransport.pollBeforeAwaitNs();
        }
        thread.start();
    }

    /** A caller came to wait, the first one: when asleep in the transport, this thread wakes and steps aside. */
    void wakeIfAsleepInTransport() {
        if (waitTransport != null && asleepInTransport) {
            // The executor thread is asleep in the transport: woken now, it steps aside, rather than later by the
            // very data this caller is about to take. (It sets the flag, then reads the count; this caller
            // counts itself, then reads the flag: one of the two sees the other. Not asleep: no fences paid.)
            waitTransport.wakeUp();
        }
    }

    @Override
    public void run() {
        TimerSlack.setForCurrentThread(TIMER_SLACK_NS);
        CommExecutor ex = executor;
        while (ex.state != CommExecutor.TERMINATED) {
            if (ex.waitingCallers.get() > 0 || callersTakeTheirOwn() || !ex.tryDrive()) {
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
                work = ex.doWork();
                sleep = work == 0 && ex.state == CommExecutor.RUNNING && waitTransport != null && idle.wouldPark()
                        && idle.idleFor(waitTransportPollNs) && ex.waitingCallers.get() == 0;
            } finally {
                ex.stopDriving();
            }
            if (sleep) {
                // Block on what the peers signal (a futex word, sockets) instead of a blind park. Not as the driver:
                // a caller that comes to wait drives at once rather than waiting for this thread to be woken and
                // scheduled (it also wakes this one, ExecutorSignal.signal / callerWaiting).
                asleepInTransport = true;   // then look at the callers once more: see wakeIfAsleepInTransport
                if (ex.waitingCallers.get() == 0) {
                    signal.awaitIn(waitTransport, Math.min(MAX_TRANSPORT_WAIT_NS, ex.planParkLimitNs()));
                }
                asleepInTransport = false;
                continue;
            }
            if (work > 0) {
                idle.reset();
                watchNs = WATCH_NS;   // this thread found work: look often again
            } else if (ex.state == CommExecutor.IDLE) {
                if (ex.wakeOnOffer) {
                    idle.idleWithoutWork(Long.MAX_VALUE);
                } else {
                    watchForOffers();
                }
            } else if (ex.state != CommExecutor.TERMINATED) {
                idle.idle(ex.state == CommExecutor.RUNNING ? ex.planParkLimitNs() : Long.MAX_VALUE);
            }
        }
    }

    /**
     * The executor thread, idle while offers do not wake it: parks for the current watch and looks again; after
     * {@link #WATCH_LIMIT_NS} without an offer it asks to be woken by the next one (then the loop polls the queue
     * once more before it parks, so an offer that did not see the request is not missed).
     */
    private void watchForOffers() {
        if (offersStopped()) {
            executor.wakeOnOffer = true;
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
        if (executor.wakeOnOffer || executor.state != CommExecutor.IDLE || offersStopped()) {
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
}
