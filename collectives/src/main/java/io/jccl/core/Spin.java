package io.jccl.core;

import io.jccl.CommConfig;

/**
 * How long a communicator's threads busy-poll before they park ({@code JCCL_SPIN_US}, {@code JCCL_IDLE_SPIN_US}),
 * and how long a waiting caller then yields ({@code JCCL_YIELD_US}).
 *
 * <p>Polling saves a park and its wake-up (on Linux at least the 50 µs timer slack, and the scheduler's delay in
 * giving the woken thread a core), but only while the polling thread has a core of its own: on a host with
 * fewer cores than busy threads it takes the core from the thread that would make progress — a peer rank, or the
 * JVM's own compiler and GC threads. With caller-driven progress a rank has one busy thread while the application
 * waits (the waiting caller drives; the executor thread parks), so when not set: with a core per rank and one more
 * for the JVMs' other threads, 100 µs within operations and 50 µs between them; with exactly a core per rank, a short
 * 20 µs within operations and none between; with fewer cores than ranks, none. Measured at one core per rank (2 rank
 * JVMs on 2 cores, four interleaved sets, docs/performance.md): 20/0 gave the fastest 8-byte all-reduces over shm and
 * tcp (shm 12.6 µs out of place against 30 µs with 100/50 and 68 µs with 0/0) and first operations as fast as with
 * no polling (the JIT gets its core), where 100/50 made them slower.
 *
 * @param inOpNs how long the executor, or a caller driving in {@code await()}, polls without progress within an
 *               operation before it parks (the caller: before it hands over to the executor thread and blocks;
 *               {@link AwaitSpin} raises the caller's while blocking does not pay)
 * @param idleNs how long the executor polls for the next operation
 * @param yieldNs how long a caller driving in {@code await()} goes on after {@code inOpNs} without progress, yielding
 *                its core between passes, before it hands over and blocks ({@code JCCL_YIELD_US}). When not set:
 *                {@link #OVERSUBSCRIBED_YIELD_US} with fewer cores than ranks, else none. There the spin is 0 (a
 *                spinning rank would hold the core its peer needs), and blocking at once costs a wake-up per step
 *                and rank; a yield hands the core straight to a runnable peer, as Open MPI does when oversubscribed.
 *                Measured, 4 rank JVMs on 2 cores (docs/performance.md): 8-byte all-reduces 9-15 µs against 39-48
 *                blocking at once, no loss at 1 and 8 MiB. With a spin time the core is the rank's own: no yield.
 */
record Spin(long inOpNs, long idleNs, long yieldNs) {
    /** {@code JCCL_SPIN_US} when not set and the host has more cores than ranks. */
    static final long DEFAULT_IN_OP_US = 100;
    /** {@code JCCL_SPIN_US} when not set and the host has exactly a core per rank. */
    static final long CORE_PER_RANK_IN_OP_US = 20;
    /** {@code JCCL_IDLE_SPIN_US} when not set and the host has more cores than ranks. */
    static final long DEFAULT_IDLE_US = 50;
    /** {@code JCCL_YIELD_US} when not set and the host has fewer cores than ranks (50 to 1,000 measured alike). */
    static final long OVERSUBSCRIBED_YIELD_US = 200;

    /** No polling and no yielding: every wait parks (deterministic simulation). */
    static final Spin NONE = new Spin(0, 0, 0);

    /**
     * @param config      the resolved settings ({@link CommConfig#SPIN_AUTO} where not set)
     * @param ranksOnHost ranks of the communicator on this host, this one included
     * @param cores       processors available to this JVM
     * @return the spin times
     */
    static Spin choose(CommConfig.Resolved config, int ranksOnHost, int cores) {
        long inOpUs = config.spinMicros() != CommConfig.SPIN_AUTO ? config.spinMicros()
                : cores > ranksOnHost ? DEFAULT_IN_OP_US : cores == ranksOnHost ? CORE_PER_RANK_IN_OP_US : 0;
        long idleUs = config.idleSpinMicros() != CommConfig.SPIN_AUTO ? config.idleSpinMicros()
                : cores > ranksOnHost ? DEFAULT_IDLE_US : 0;
        long yieldUs = config.yieldMicros() != CommConfig.SPIN_AUTO ? config.yieldMicros()
                : cores < ranksOnHost ? OVERSUBSCRIBED_YIELD_US : 0;
        return new Spin(inOpUs * 1000, idleUs * 1000, yieldUs * 1000);
    }
}
