package io.jccl.core;

/**
 * The running data movement of one operation (or of a group's point-to-point members): a non-blocking state
 * machine that the executor steps, on its thread or on a waiting caller's, until {@link #done()}. A plan run by
 * the {@link PlanRunner}, or an all-reduce between ranks in one JVM that reads its peers' buffers in place
 * ({@link DirectAllReduce}).
 */
interface OpRun {
    /**
     * Advances what can advance now, without blocking, in a bounded slice of work.
     *
     * @return true when something progressed
     * @throws io.jccl.JcclException when the operation failed (mismatch, peer gone, transport error)
     */
    boolean progress();

    /** @return true when the data movement finished and no peer touches this rank's buffers for it any more */
    boolean done();

    /** @return what the run still waits for, for timeout messages, e.g. {@code data from ranks [3]} */
    String waitingFor();

    /**
     * Forgets the current run after a failure; when it returns, no peer reads or writes this rank's buffers for
     * it any more (the caller may then fail the operation and the user free its buffers).
     */
    void abandon();
}
