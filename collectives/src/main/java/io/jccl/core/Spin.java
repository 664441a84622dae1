package io.jccl.core;

import io.jccl.CommConfig;

/**
 * How long a communicator's threads busy-poll before they park ({@code JCCL_SPIN_US}, {@code JCCL_IDLE_SPIN_US}).
 *
 * <p>Polling saves a park and its wake-up (on Linux at least the 50 µs timer slack, and the scheduler's delay in
 * giving the woken thread a core), but only while the polling thread has a core of its own: on a host with
 * fewer cores than busy threads it takes the core from the thread that would make progress — a peer rank's
 * executor, or this rank's own caller waiting to be woken. Every rank has at least two busy threads (its executor
 * and its caller, besides any transport threads), so when not set, polling needs two cores per rank of the
 * communicator on this host. With one core per rank (2 ranks on 2 vCPUs), 100 µs of polling within operations
 * measured 2-3x slower at 8 bytes than none (docs/performance.md).
 *
 * @param inOpNs how long the executor polls for peers within an operation
 * @param idleNs how long the executor polls for the next operation, and a caller of {@code await()} for
 *               completion
 */
record Spin(long inOpNs, long idleNs) {
    /** {@code JCCL_SPIN_US} when not set and there are two cores per rank on the host. */
    static final long DEFAULT_IN_OP_US = 100;
    /** {@code JCCL_IDLE_SPIN_US} when not set and there are two cores per rank on the host. */
    static final long DEFAULT_IDLE_US = 50;

    /**
     * @param config      the resolved settings ({@link CommConfig#SPIN_AUTO} where not set)
     * @param ranksOnHost ranks of the communicator on this host, this one included
     * @param cores       processors available to this JVM
     * @return the spin times
     */
    static Spin choose(CommConfig.Resolved config, int ranksOnHost, int cores) {
        long inOpUs = config.spinMicros() != CommConfig.SPIN_AUTO ? config.spinMicros()
                : cores >= 2L * ranksOnHost ? DEFAULT_IN_OP_US : 0;
        long idleUs = config.idleSpinMicros() != CommConfig.SPIN_AUTO ? config.idleSpinMicros()
                : cores >= 2L * ranksOnHost ? DEFAULT_IDLE_US : 0;
        return new Spin(inOpUs * 1000, idleUs * 1000);
    }
}
