package io.jccl.core;

/**
 * What a caller waiting for an operation drives: the communicator's executor, a state machine that one thread at a
 * time steps. The thread that waits runs the progress itself (plan runner and transports), as MPI, gloo and UCX do,
 * instead of waiting for the executor thread to be woken and scheduled; the executor thread steps aside while a
 * caller drives and takes over what nobody waits for.
 */
interface Progress {
    /** @return whether the calling thread now drives (it must call {@link #stopDriving()}); false: another does */
    boolean tryDrive();

    /** One bounded step of the state machine; only while driving. @return work done (0: nothing progressed) */
    int step();

    /** Ends driving; the executor thread may drive again. */
    void stopDriving();

    /** @return whether the calling thread drives now (a completion callback runs while its thread drives) */
    boolean isDrivenByCurrentThread();

    /**
     * A caller starts or stops waiting: while any waits, the executor thread leaves the driving to it; when the last
     * stops, the executor thread is woken to carry on with whatever is left.
     */
    void callerWaiting(boolean waiting);
}
