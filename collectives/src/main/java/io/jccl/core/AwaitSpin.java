package io.jccl.core;

/**
 * How long a caller waiting for an operation drives without progress before it hands over and blocks: the
 * configured spin ({@code JCCL_SPIN_US}), raised while blocking does not pay. A caller that blocked and was woken
 * soon after (the peer's reply came shortly after it gave up) paid two wake-ups for nothing; when both ranks do so
 * they stay in that mode, every call waiting for wake-ups: measured on two cores, the first 200 8-byte all-reduces
 * after creation had medians of 83-180 µs with 20 µs of spin and 3-6 µs with 1,000 µs. So the spin follows the
 * recent short blocks: twice the last block that ended within {@link #MAX_NS}, decaying while calls complete
 * without blocking; a block longer than that (a peer busy elsewhere) does not raise it, since spinning would not
 * have caught the reply.
 *
 * <p>A larger operation sets a floor besides ({@link #spinNs(long)}): a peer a step behind in it stays silent while it
 * moves its share, and on a VM whose idle vCPU sleeps a block and its wake-up cost up to milliseconds. Measured on two
 * cores, 1 MiB over shm, 5000-call rounds, 3 alternating runs of each: 300-446 calls over 1 ms per 40,000 with
 * 20 µs of spin, 132-200 with this floor (docs/performance.md).
 *
 * <p>Shared by the waiters of one communicator; racy updates between concurrent waiters only blur the estimate.
 */
final class AwaitSpin {
    /** The most the spin is raised to by blocks. */
    static final long MAX_NS = 1_000_000;
    /** The floor an operation's size sets: this many ns of spin per byte of it ... */
    static final long FLOOR_NS_PER_BYTE = 2;
    /** ... up to this. */
    static final long FLOOR_MAX_NS = 2_000_000;

    private final long configuredNs;
    private final long yieldNs;
    /** The last block that ended within {@link #MAX_NS}, decayed by calls that did not block; 0: none. */
    private volatile long shortBlockNs;

    /** @param configuredNs the configured spin; 0 (fewer cores than busy threads) is never raised */
    AwaitSpin(long configuredNs) {
        this(configuredNs, 0);
    }

    /**
     * @param configuredNs the configured spin; 0 (fewer cores than busy threads) is never raised
     * @param yieldNs      how long a waiter goes on after the spin, yielding its core between passes ({@link Spin})
     */
    AwaitSpin(long configuredNs, long yieldNs) {
        this.configuredNs = Math.max(0, configuredNs);
        this.yieldNs = Math.max(0, yieldNs);
    }

    /** @return how long a waiter drives on after {@link #spinNs()}, yielding between passes, before it blocks */
    long yieldNs() {
        return yieldNs;
    }

    /** @return how long a waiter drives without progress before it blocks now */
    long spinNs() {
        return spinNs(0);
    }

    /**
     * @param opBytes the waited operation's data per rank in bytes (0 when not known)
     * @return how long a waiter of such an operation drives without progress before it blocks now: the spin, and at
     *         least {@link #FLOOR_NS_PER_BYTE} per byte of the operation up to {@link #FLOOR_MAX_NS}; 0 stays 0
     */
    long spinNs(long opBytes) {
        if (configuredNs == 0) {
            return 0;
        }
        long floorNs = opBytes >= FLOOR_MAX_NS / FLOOR_NS_PER_BYTE ? FLOOR_MAX_NS
                : Math.max(0, opBytes) * FLOOR_NS_PER_BYTE;
        return Math.max(Math.max(configuredNs, floorNs), Math.min(MAX_NS, 2 * shortBlockNs));
    }

    /** A waiter's operation completed while it drove or polled. */
    void completedWithoutBlocking() {
        long s = shortBlockNs;
        if (s != 0) {
            shortBlockNs = Math.max(0, s - (s >> 6) - 1);
        }
    }

    /** @param blockedNs how long a waiter blocked after it handed over until its operation completed */
    void blocked(long blockedNs) {
        if (configuredNs > 0 && blockedNs >= 0 && blockedNs <= MAX_NS) {
            shortBlockNs = blockedNs;
        }
    }
}
