package io.jccl.core;

import io.jccl.CommConfig;

/**
 * How long a communicator's threads busy-poll before they park ({@code JCCL_SPIN_US}, {@code JCCL_IDLE_SPIN_US}).
 *
 * <p>Polling saves a park and its wake-up (on Linux at least the 50 µs timer slack, and the scheduler's delay in
 * giving the woken thread a core), but only while the polling thread has a core of its own: on a host with
 * fewer cores than busy threads it takes the core from the thread that would make progress — a peer rank, or the
 * JVM's own compiler and GC threads. With caller-driven progress a rank has one busy thread while the application
 * waits (the waiting caller drives; the executor thread parks), so when not set, polling needs a core per rank of
 * the communicator on this host and one more for the JVMs' other threads. Measured at one core per rank (2 rank
 * JVMs, 2 cores; benchmarks in docs/performance.md): without polling the first operations of fresh JVMs ran 1.6x
 * faster (the JIT got its core), 1 MiB in one JVM 2.8x faster, the steady state at 8 MiB no slower, and 8 bytes
 * mixed.
 *
 * @param inOpNs how long the executor, or a caller driving in {@code await()}, polls without progress within an
 *               operation before it parks (the caller: before it hands over to the executor thread and blocks)
 * @param idleNs how long the executor polls for the next operation
 */
record Spin(long inOpNs, long idleNs) {
    /** {@code JCCL_SPIN_US} when not set and the host has more cores than ranks. */
    static final long DEFAULT_IN_OP_US = 100;
    /** {@code JCCL_IDLE_SPIN_US} when not set and the host has more cores than ranks. */
    static final long DEFAULT_IDLE_US = 50;

    /**
     * @param config      the resolved settings ({@link CommConfig#SPIN_AUTO} where not set)
     * @param ranksOnHost ranks of the communicator on this host, this one included
     * @param cores       processors available to this JVM
     * @return the spin times
     */
    static Spin choose(CommConfig.Resolved config, int ranksOnHost, int cores) {
        long inOpUs = config.spinMicros() != CommConfig.SPIN_AUTO ? config.spinMicros()
                : cores > ranksOnHost ? DEFAULT_IN_OP_US : 0;
        long idleUs = config.idleSpinMicros() != CommConfig.SPIN_AUTO ? config.idleSpinMicros()
                : cores > ranksOnHost ? DEFAULT_IDLE_US : 0;
        return new Spin(inOpUs * 1000, idleUs * 1000);
    }
}
