package io.jccl.metaroce.net;

import io.jccl.metaroce.udp.SocketWaiter;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * A dedicated driver thread's idle strategy: spin and yield briefly, then sleep in the kernel on the sockets
 * ({@link SocketWaiter}) until a datagram arrives, the next protocol timer is due, or a caller hands over work. A
 * datagram then wakes the thread within microseconds, and an idle transport costs no CPU.
 */
final class WaitingIdleStrategy implements IdleStrategy {
    private static final int SPINS = 50;
    private static final int YIELDS = 20;
    private static final long MAX_SLEEP_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long CALLER_ACTIVE_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long CALLER_ACTIVE_PARK_NS = TimeUnit.MICROSECONDS.toNanos(200);

    private final SocketWaiter waiter;
    private final LongSupplier nextTimerNs;
    private final BooleanSupplier nothingQueued;
    private final LongSupplier lastCallerCycleNs;
    private int idleCycles;

    /**
     * @param waiter        sleeps on the transport's sockets
     * @param nextTimerNs   when the earliest protocol timer is due ({@link System#nanoTime()} clock)
     * @param nothingQueued true while callers have handed over nothing
     * @param lastCallerCycleNs when a caller last ran a duty cycle ({@link System#nanoTime()} clock)
     */
    WaitingIdleStrategy(SocketWaiter waiter, LongSupplier nextTimerNs, BooleanSupplier nothingQueued,
                        LongSupplier lastCallerCycleNs) {
        this.waiter = waiter;
        this.nextTimerNs = nextTimerNs;
        this.nothingQueued = nothingQueued;
        this.lastCallerCycleNs = lastCallerCycleNs;
    }

    @Override
    public void idle(int workCount) {
        if (workCount > 0) {
            reset();
        } else {
            idle();
        }
    }

    @Override
    public void idle() {
        if (System.nanoTime() - lastCallerCycleNs.getAsLong() < CALLER_ACTIVE_NS) {
            // A caller is polling, so it moves the protocol as datagrams come: waking for each of them too would
            // only take the core from it. Look again shortly, in case it stops.
            LockSupport.parkNanos(CALLER_ACTIVE_PARK_NS);
            return;
        }
        int n = idleCycles++;
        if (n < SPINS) {
            Thread.onSpinWait();
        } else if (n < SPINS + YIELDS) {
            Thread.yield();
        } else {
            long waitNs = Math.min(MAX_SLEEP_NS, nextTimerNs.getAsLong() - System.nanoTime());
            if (waitNs > 0) {
                waiter.await(waitNs, nothingQueued);
            }
        }
    }

    @Override
    public void reset() {
        idleCycles = 0;
    }

    @Override
    public String alias() {
        return "metaroce-sockets";
    }
}
