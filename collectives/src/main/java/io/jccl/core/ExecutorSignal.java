package io.jccl.core;

import io.jccl.net.ProgressSignal;

import java.util.concurrent.locks.LockSupport;

/**
 * Wakes a communicator's executor. Lost wake-ups are impossible: the waiter publishes {@code parked} before
 * it reads {@code signalled}, the signaller publishes {@code signalled} before it reads {@code parked}.
 */
final class ExecutorSignal implements ProgressSignal {
    private volatile Thread owner;
    private volatile boolean signalled;
    private volatile boolean parked;

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
            Thread t = owner;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    /** Parks the owner until signalled or {@code maxNanos} passed. */
    void park(long maxNanos) {
        parked = true;
        if (!signalled) {
            LockSupport.parkNanos(this, maxNanos);
        }
        parked = false;
        signalled = false;
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
