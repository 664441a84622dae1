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

    @Override
    public void signal() {
        if (!signalled) {
            signalled = true;
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

    /** Clears a pending signal (after the executor looked anyway). */
    void clear() {
        if (signalled) {
            signalled = false;
        }
    }
}
