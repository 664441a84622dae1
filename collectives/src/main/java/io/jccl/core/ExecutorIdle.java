package io.jccl.core;

/**
 * How the executor waits when nothing progressed: spin, then yield, then park. When every connection signals
 * completions the park is long (a signal ends it); otherwise the executor must poll, and parks back off
 * exponentially up to a short bound.
 */
final class ExecutorIdle {
    private static final int SPINS = 64;
    private static final int YIELDS = 8;
    private static final long MIN_PARK_NS = 1_000;
    private static final long MAX_POLL_PARK_NS = 50_000;
    private static final long MAX_SIGNALLED_PARK_NS = 2_000_000;

    private final ExecutorSignal signal;
    private final boolean transportsSignal;
    private int idleCount;
    private long parkNs = MIN_PARK_NS;

    ExecutorIdle(ExecutorSignal signal, boolean transportsSignal) {
        this.signal = signal;
        this.transportsSignal = transportsSignal;
    }

    void reset() {
        idleCount = 0;
        parkNs = MIN_PARK_NS;
    }

    /** @param maxParkNs longest park allowed now (e.g. until an operation's deadline) */
    void idle(long maxParkNs) {
        int n = idleCount++;
        if (n < SPINS) {
            Thread.onSpinWait();
        } else if (n < SPINS + YIELDS) {
            Thread.yield();
        } else if (transportsSignal) {
            signal.park(Math.min(MAX_SIGNALLED_PARK_NS, maxParkNs));
        } else {
            signal.park(Math.min(parkNs, maxParkNs));
            parkNs = Math.min(parkNs * 2, MAX_POLL_PARK_NS);
        }
    }

    /** Waiting while no operation is queued: parks longer. */
    void idleWithoutWork(long maxParkNs) {
        int n = idleCount++;
        if (n < SPINS) {
            Thread.onSpinWait();
        } else if (n < SPINS + YIELDS) {
            Thread.yield();
        } else {
            signal.park(Math.min(transportsSignal ? 50_000_000 : 1_000_000, maxParkNs));
        }
    }
}
