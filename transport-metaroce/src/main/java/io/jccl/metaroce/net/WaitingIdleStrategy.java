package io.jccl.metaroce.net;

import io.jccl.metaroce.udp.SocketWaiter;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
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
    /** A caller that polled this recently is taken to be polling still. */
    static final long CALLER_ACTIVE_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * How long a driver thread first stands aside while a caller polls. Each look is a wake-up that takes a core
     * from a spinning caller on a small host, and its peer waits while it is off: at 200 µs (about 3,500 looks a
     * second per rank) an 8 B all-reduce of 2 ranks took 13.7 / 13.6 µs (out of place / in place), at 1 ms 12.1 /
     * 11.5 (medians of 16 alternating pairs, docs/performance.md).
     */
    static final long CALLER_ACTIVE_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * The longest it stands aside: each look that finds the caller still polling doubles the next one, up to this
     * (about 250 looks a second instead of 1,000 while callers keep polling). A caller that stops polling is
     * noticed within this plus {@link #CALLER_ACTIVE_NS}: 5 ms, the default RTO floor, so what it left unacknowledged
     * costs its peer at most one spurious retransmission.
     */
    static final long MAX_CALLER_ACTIVE_PARK_NS = TimeUnit.MILLISECONDS.toNanos(4);
    /** How long it stands aside when a timer is due but another thread holds the duty cycle. */
    static final long DUE_TIMER_PARK_NS = TimeUnit.MICROSECONDS.toNanos(50);

    private final SocketWaiter waiter;
    private final LongSupplier nextTimerNs;
    private final BooleanSupplier nothingQueued;
    private final BooleanSupplier callerPolling;
    private final LongSupplier clockNs;
    private final LongConsumer parkNs;
    private int idleCycles;
    /** The next stand-aside while a caller polls: {@link #CALLER_ACTIVE_PARK_NS}, doubled per look that found one. */
    private long callerParkNs = CALLER_ACTIVE_PARK_NS;

    /**
     * @param waiter        sleeps on the transport's sockets
     * @param nextTimerNs   when the earliest protocol timer is due ({@link System#nanoTime()} clock):
     *                      {@link Long#MIN_VALUE} when at once or not known now, {@link Long#MAX_VALUE} when none
     * @param nothingQueued true while callers have handed over nothing
     * @param callerPolling true while a caller polls (within {@link #CALLER_ACTIVE_NS}): it moves the protocol
     */
    WaitingIdleStrategy(SocketWaiter waiter, LongSupplier nextTimerNs, BooleanSupplier nothingQueued,
                        BooleanSupplier callerPolling) {
        this(waiter, nextTimerNs, nothingQueued, callerPolling, System::nanoTime, LockSupport::parkNanos);
    }

    /** As above, with the clock and the parking injected (tests). */
    WaitingIdleStrategy(SocketWaiter waiter, LongSupplier nextTimerNs, BooleanSupplier nothingQueued,
                        BooleanSupplier callerPolling, LongSupplier clockNs, LongConsumer parkNs) {
        this.waiter = waiter;
        this.nextTimerNs = nextTimerNs;
        this.nothingQueued = nothingQueued;
        this.callerPolling = callerPolling;
        this.clockNs = clockNs;
        this.parkNs = parkNs;
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
        if (callerPolling.getAsBoolean()) {
            // A caller is polling, so it moves the protocol as datagrams come: waking for each of them too would
            // only take the core from it. Look again shortly, in case it stops.
            parkNs.accept(callerParkNs);
            callerParkNs = Math.min(MAX_CALLER_ACTIVE_PARK_NS, 2 * callerParkNs);
            return;
        }
        callerParkNs = CALLER_ACTIVE_PARK_NS;   // no caller polls now: when one comes, look often again at first
        int n = idleCycles++;
        if (n < SPINS) {
            Thread.onSpinWait();
        } else if (n < SPINS + YIELDS) {
            Thread.yield();
        } else {
            long timerNs = nextTimerNs.getAsLong();
            // The sentinels are compared, not subtracted: MIN_VALUE (due at once) minus a clock reading wraps to a
            // long sleep, and MAX_VALUE (no timer) minus a negative reading wraps to a negative one.
            long waitNs = timerNs == Long.MIN_VALUE ? 0
                    : timerNs == Long.MAX_VALUE ? MAX_SLEEP_NS : Math.min(MAX_SLEEP_NS, timerNs - clockNs.getAsLong());
            if (waitNs > 0) {
                waiter.await(waitNs, nothingQueued);
            } else {
                // A timer is due and this thread did not run it: a caller holds the duty cycle (it may have been
                // descheduled in the middle of one). Spinning here would take the core it needs to finish.
                parkNs.accept(DUE_TIMER_PARK_NS);
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
