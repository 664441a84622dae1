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
    private static final long CALLER_DRIVING_PARK_NS = TimeUnit.MICROSECONDS.toNanos(50);

    private final SocketWaiter waiter;
    private final LongSupplier nextTimerNs;
    private final BooleanSupplier nothingQueued;
    private final BooleanSupplier callerDriving;
    private int idleCycles;

    /**
     * @param waiter        sleeps on the transport's sockets
     * @param nextTimerNs   when the earliest protocol timer is due ({@link System#nanoTime()} clock)
     * @param nothingQueued true while callers have handed over nothing
     * @param callerDriving true when the last duty cycle was skipped because a caller was running one
     */
    WaitingIdleStrategy(SocketWaiter waiter, LongSupplier nextTimerNs, BooleanSupplier nothingQueued,
                        BooleanSupplier callerDriving) {
        this.waiter = waiter;
        this.nextTimerNs = nextTimerNs;
        this.nothingQueued = nothingQueued;
        this.callerDriving = callerDriving;
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
        if (callerDriving.getAsBoolean()) {
            LockSupport.parkNanos(CALLER_DRIVING_PARK_NS);   // a caller is moving the protocol; stay out of its way
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
