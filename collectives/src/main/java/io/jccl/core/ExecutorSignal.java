package io.jccl.core;

import io.jccl.net.ProgressSignal;

import java.util.concurrent.locks.LockSupport;

/**
 * Wakes a communicator's executor. Two kinds of wake-up: {@link #signal()} (the {@link ProgressSignal} transports
 * call when an operation may progress) and {@link #wake()} (the communicator's own: an offer, a hand-over, a close;
 * and an in-JVM peer's phase advance, which a rank whose executor carries the operation may wait for). {@link #park} ends on either; {@link #parkWatching} — the executor thread staying out of the
 * way while callers drive their own operations — only on {@link #wake()}: their progress is theirs to see (an
 * operation a caller hands over unfinished wakes the executor as it does so), and waking the executor thread for each completion cost a futex wake-up and a context switch
 * per message on a small host (docs/performance.md). Lost wake-ups are impossible: the waiter publishes that it
 * parks before it reads the flag, the signaller publishes the flag before it reads whether the waiter parks.
 */
final class ExecutorSignal implements ProgressSignal {
    private volatile Thread owner;
    private volatile boolean signalled;
    private volatile boolean parked;
    /** Set by {@link #wake()} until a {@link #parkWatching} consumes it. */
    private volatile boolean woken;
    private volatile boolean watching;

    void owner(Thread thread) {
        this.owner = thread;
    }

    /** The transport the owner waits on ({@code awaitProgress}) while it does, else null. */
    private volatile io.jccl.net.NetTransport waitingOn;

    @Override
    public void signal() {
        if (!signalled) {
            signalled = true;
        }
        io.jccl.net.NetTransport transport = waitingOn;
        if (transport != null) {
            transport.wakeUp();   // ends the owner's wait in the transport (it reads signalled after publishing waitingOn)
        }
        if (parked) {
            unparkOwner();
        }
    }

    /** The communicator's own wake-up (an offer, a hand-over, close or abort): ends every kind of park. */
    void wake() {
        if (!woken) {
            woken = true;
        }
        signal();
        if (watching) {
            unparkOwner();
        }
    }

    private void unparkOwner() {
        Thread t = owner;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Parks the owner until signalled, woken or {@code maxNanos} passed. */
    void park(long maxNanos) {
        parked = true;
        if (!signalled) {
            LockSupport.parkNanos(this, maxNanos);
        }
        parked = false;
        signalled = false;
    }

    /** Parks the owner until {@link #wake() woken} or {@code maxNanos} passed; progress signals do not end it. */
    void parkWatching(long maxNanos) {
        watching = true;
        if (!woken) {
            LockSupport.parkNanos(this, maxNanos);
        }
        watching = false;
        woken = false;
    }

    /**
     * Waits in {@code transport} ({@link io.jccl.net.NetTransport#awaitProgress}: on what the peers signal, in the
     * kernel) until progress may be possible, a {@link #signal()} or {@code maxNanos}; no lost wake-up, as with
     * {@link #park}.
     */
    void awaitIn(io.jccl.net.NetTransport transport, long maxNanos) {
        waitingOn = transport;
        if (!signalled) {
            transport.awaitProgress(maxNanos);
        }
        waitingOn = null;
        signalled = false;
    }

    /** Clears a pending signal (after the executor looked anyway). */
    void clear() {
        if (signalled) {
            signalled = false;
        }
    }
}
