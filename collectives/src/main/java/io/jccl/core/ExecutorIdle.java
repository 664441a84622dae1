package io.jccl.core;

import org.agrona.concurrent.NanoClock;

/**
 * How the executor waits when nothing progressed: it busy-polls ({@link Thread#onSpinWait()}) for a bounded time
 * since it last saw work — an operation picked up or a step that progressed — and at least a few dozen times,
 * then parks.
 *
 * <ul>
 * <li>Within an operation ({@link #idle}) it polls for {@code spinNs} ({@code JCCL_SPIN_US}): the replies of a
 *     small operation's peers arrive within microseconds, far below what a park and its wake-up cost (a park
 *     lasts at least Linux's 50 µs timer slack).</li>
 * <li>Between operations ({@link #idleWithoutWork}) it polls its queue for {@code idleSpinNs}
 *     ({@code JCCL_IDLE_SPIN_US}), so back-to-back operations are picked up without an unpark; then it parks
 *     until an operation is queued. A communicator that sits idle thus parks soon after its last operation.</li>
 * </ul>
 *
 * <p>With a spin time there is no {@link Thread#yield()} phase: on a host with more runnable threads than cores a
 * yield can hand the core to another process's thread for a whole scheduler slice (measured: about 1 ms on two
 * vCPUs), longer than any park. Without one (the default when the host has fewer cores than ranks, e.g. several
 * ranks in one JVM) the executor yields a few times before it parks, as before this option existed: the peer rank
 * whose data it waits for, or the caller it just completed, may need this very core.
 *
 * <p>Parks: when every connection signals completions the park is long (a signal ends it); otherwise the
 * executor must poll, and parks back off exponentially up to a short bound.
 */
final class ExecutorIdle {
    /** Polls before parking even with no spin time (well under a microsecond). */
    private static final int MIN_SPINS = 64;
    /** Yields after the minimal polls, within an operation, when there is no spin time. */
    private static final int YIELDS = 8;
    private static final long MIN_PARK_NS = 1_000;
    private static final long MAX_POLL_PARK_NS = 50_000;
    private static final long MAX_SIGNALLED_PARK_NS = 2_000_000;

    private final ExecutorSignal signal;
    private final NanoClock clock;
    private final boolean transportsSignal;
    private final long spinNs;
    private final long idleSpinNs;
    private int spins;
    /** When work was last seen ({@link #reset()}). */
    private long busyNs;
    private boolean everBusy;
    private long parkNs = MIN_PARK_NS;

    /**
     * @param signal           what parks and wakes the executor
     * @param clock            the executor's clock (the spin budgets are measured on it)
     * @param transportsSignal whether every connection signals its completions
     * @param spinNs           how long to busy-poll within an operation, after its last progress, before parking
     * @param idleSpinNs       how long to poll for the next operation after the last one's last progress
     */
    ExecutorIdle(ExecutorSignal signal, NanoClock clock, boolean transportsSignal, long spinNs, long idleSpinNs) {
        this.signal = signal;
        this.clock = clock;
        this.transportsSignal = transportsSignal;
        this.spinNs = Math.max(0, spinNs);
        this.idleSpinNs = Math.max(0, idleSpinNs);
    }

    /** Work was seen now: the next waits spin again. */
    void reset() {
        spins = 0;
        parkNs = MIN_PARK_NS;
        busyNs = clock.nanoTime();
        everBusy = true;
    }

    /**
     * @return whether the next wait within an operation would park, spinning and yielding being spent: then a
     *         transport that can block on what its peers signal may be waited on instead (no state is changed)
     */
    boolean wouldPark() {
        if (spins < MIN_SPINS || (spinNs == 0 && spins < MIN_SPINS + YIELDS)) {
            return false;
        }
        return !(everBusy && spinNs > 0 && clock.nanoTime() - busyNs < spinNs);
    }

    /** @return whether nothing progressed for the spin time and then {@code pollNs} more */
    boolean idleFor(long pollNs) {
        return pollNs <= 0 || !everBusy || clock.nanoTime() - busyNs >= spinNs + pollNs;
    }

    /** @return whether to poll once more (rather than park) this time */
    private boolean spin(long budgetNs) {
        if (spins < MIN_SPINS) {
            spins++;
            return true;
        }
        return everBusy && budgetNs > 0 && clock.nanoTime() - busyNs < budgetNs;
    }

    /** @return whether to yield now: only without a spin time, a few times after the minimal polls */
    private boolean yieldOnce() {
        if (spinNs == 0 && spins < MIN_SPINS + YIELDS) {
            spins++;
            return true;
        }
        return false;
    }

    /**
     * Waiting while an operation runs and nothing progressed.
     *
     * @param maxParkNs longest park allowed now (e.g. until an operation's deadline)
     */
    void idle(long maxParkNs) {
        if (spin(spinNs)) {
            Thread.onSpinWait();
        } else if (yieldOnce()) {
            Thread.yield();
        } else if (transportsSignal) {
            signal.park(Math.min(MAX_SIGNALLED_PARK_NS, maxParkNs));
        } else {
            signal.park(Math.min(parkNs, maxParkNs));
            parkNs = Math.min(parkNs * 2, MAX_POLL_PARK_NS);
        }
    }

    /** Waiting while no operation is queued: parks longer (queuing an operation wakes the executor). */
    void idleWithoutWork(long maxParkNs) {
        if (spin(idleSpinNs)) {
            Thread.onSpinWait();
        } else if (yieldOnce()) {
            Thread.yield();
        } else {
            signal.park(Math.min(transportsSignal ? 50_000_000 : 1_000_000, maxParkNs));
        }
    }
}
