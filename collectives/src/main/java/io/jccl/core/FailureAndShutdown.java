package io.jccl.core;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.Arena;

/**
 * A {@link CommExecutor}'s ways out of normal operation, on the thread that steps it: an operation that fails (and
 * how its failure is explained and told to the peers), the communicator breaking, and its shutdown on close or
 * abort. It runs the executor's states {@link CommExecutor#EXPLAINING}, {@link CommExecutor#LINGERING} and {@link
 * CommExecutor#CLOSING}, and moves the executor between its states.
 */
final class FailureAndShutdown {
    private final CommExecutor executor;
    private final int rank;
    private final PeerLinks links;
    private final ControlPlane control;
    private final NanoClock clock;
    private final StagingPool staging;
    private final Arena arena;
    private final PlanLauncher launcher;

    /** EXPLAINING, LINGERING: what the current operation fails with. */
    private JcclException pendingError;
    /** LINGERING: whether to fail the queued operations too if an abort was requested meanwhile. */
    private boolean drainIfAborted;
    /** EXPLAINING: until when a report from a peer may explain the failure. */
    private long explainUntilNs;
    /** CLOSING: what the queue was drained with. */
    private JcclException shutdownError;

    FailureAndShutdown(CommExecutor executor, int rank, PeerLinks links, ControlPlane control, NanoClock clock,
                       StagingPool staging, Arena arena, PlanLauncher launcher) {
        this.executor = executor;
        this.rank = rank;
        this.links = links;
        this.control = control;
        this.clock = clock;
        this.staging = staging;
        this.arena = arena;
        this.launcher = launcher;
    }

    /** @return EXPLAINING: until when a report from a peer may explain the failure */
    long explainUntilNs() {
        return explainUntilNs;
    }

    /** Turns what the current operation threw into the communicator's state, as a rank's failure must. */
    void operationFailed(RuntimeException e) {
        launcher.clearBindings();
        if (e instanceof ReportedFailure reported) {
            breakAndFail(reported.error, false, false);
        } else if (e instanceof ParentFailure parent) {
            failLocally(parent.error);
        } else if (e instanceof JcclException je) {
            failLocally(je);
        } else {
            breakAndFail(new JcclException(ErrorCode.INTERNAL_ERROR, "unexpected failure in "
                    + executor.current.describe() + ": " + e, e), true, false);
        }
    }

    /** The current operation failed on this rank; a vanished peer's failure may have a better explanation. */
    private void failLocally(JcclException e) {
        if (e.code() == ErrorCode.REMOTE_ERROR) {
            pendingError = e;
            explainUntilNs = clock.nanoTime() + CommExecutor.EXPLANATION_WAIT_NS;
            executor.state = CommExecutor.EXPLAINING;
            stepExplaining();
            return;
        }
        breakAndFail(e, e.code() != ErrorCode.ABORTED || executor.abortRequested, true);
    }

    /** After a peer vanished, a report from another rank may say why: poll for one until the wait ends. */
    int stepExplaining() {
        if (clock.nanoTime() - explainUntilNs >= 0) {
            JcclException reason = pendingError;
            breakAndFail(reason, reason.code() != ErrorCode.ABORTED || executor.abortRequested, true);
            return 1;
        }
        JcclException remote = control.poll();
        if (remote != null) {
            breakAndFail(remote, false, false);
            return 1;
        }
        return 0;
    }

    /**
     * Breaks the communicator with {@code e} (unless it is broken already) and fails the current operation, if
     * any, with it. When peers are told, their reports first get a moment to leave (LINGERING), before the data
     * connections close.
     *
     * @param drainIfAborted whether to fail the queued operations too when an abort was requested
     */
    void breakAndFail(JcclException e, boolean tellPeers, boolean drainIfAborted) {
        pendingError = e;
        this.drainIfAborted = drainIfAborted;
        if (executor.failure == null) {
            executor.failure = e;
            if (tellPeers) {
                control.broadcast(e.code(), e.code() == ErrorCode.ABORTED ? "rank " + rank
                        + " aborted its communicator" : e.detail());
                executor.state = CommExecutor.LINGERING;
                stepLingering();
                return;
            }
            dropData(e);
        }
        failCurrent();
    }

    int stepLingering() {
        if (!control.reportsSettled(clock.nanoTime())) {
            return 0;
        }
        dropData(executor.failure);
        failCurrent();
        return 1;
    }

    /** The communicator broke: no peer may write into user memory any more. */
    private void dropData(JcclException e) {
        executor.running.abandon();
        links.closeData();
        if (e.code() != ErrorCode.ABORTED) {
            CommExecutor.LOG.warn("rank {}: communicator failed: {}", rank, e.getMessage());
        }
    }

    private void failCurrent() {
        OpRequest op = executor.current;
        JcclException e = pendingError;
        executor.current = null;
        pendingError = null;
        executor.state = CommExecutor.IDLE;
        if (op != null) {
            executor.fail(op, e);
            if (drainIfAborted && executor.abortRequested) {
                executor.drainQueue(aborted());
            }
        }
    }

    void startShutdown() {
        JcclException end = executor.abortRequested ? aborted()
                : new JcclException(ErrorCode.INVALID_USAGE, "the communicator is closed");
        shutdownError = end;
        executor.drainQueue(end);
        if (executor.abortRequested && executor.failure == null) {
            executor.failure = end;
            control.broadcast(ErrorCode.ABORTED, "rank " + rank + " aborted its communicator");
        } else if (!executor.abortRequested && executor.failure == null) {
            control.sayGoodbye();   // a broken communicator's peers are broken too: no goodbye to wait for
        }
        executor.state = CommExecutor.CLOSING;
        stepClosing();
    }

    int stepClosing() {
        if (!control.reportsSettled(clock.nanoTime())) {
            return 0;
        }
        finishShutdown();
        return 1;
    }

    private void finishShutdown() {
        control.stopSending();
        links.closeAll();   // a stepped communicator's links own no transports: only its connections close
        if (!executor.stepped()) {
            // The transports closed above (gracefully: what they still send from this memory went out first). A
            // stepped communicator's transports close later, under their owner: it frees the memory after them
            // (SteppedCommunicator.release).
            staging.close();
            arena.close();
        }
        executor.endError = shutdownError;
        executor.terminate();
        executor.failStranded();   // anything that slipped in while closing; later arrivals are failed by their issuer
    }

    /** See {@link CommExecutor#releaseAbandoned()}. */
    void releaseAbandoned() {
        if (executor.state != CommExecutor.TERMINATED) {
            executor.terminate();
        }
        if (arena.scope().isAlive()) {
            staging.close();
            arena.close();
        }
    }

    /** A bug or an Error escaped a step: the communicator fails and shuts down at once, without reports. */
    void failUnexpectedly(Throwable t) {
        CommExecutor.LOG.error("rank {}: the communicator thread failed unexpectedly", rank, t);
        JcclException internal = new JcclException(ErrorCode.INTERNAL_ERROR, "the communicator thread failed: " + t,
                t);
        executor.failure = internal;
        if (executor.state == CommExecutor.TERMINATED) {
            return;
        }
        try {
            OpRequest op = executor.current;
            executor.current = null;
            if (op != null) {
                if (executor.running == launcher.direct()) {
                    launcher.direct().abandon();   // before the future fails: peers may be reading its buffers
                }
                executor.fail(op, internal);
            }
            shutdownError = executor.abortRequested ? aborted()
                    : new JcclException(ErrorCode.INVALID_USAGE, "the communicator is closed");
            executor.drainQueue(shutdownError);
            finishShutdown();
        } catch (Throwable again) {
            CommExecutor.LOG.error("rank {}: shutting the communicator down failed", rank, again);
            executor.terminate();
        }
    }

    JcclException aborted() {
        return new JcclException(ErrorCode.ABORTED, "the communicator (rank " + rank + ") was aborted");
    }

    static JcclException brokenBy(JcclException cause) {
        return new JcclException(cause.code(), "the communicator failed earlier: " + cause.detail(), cause);
    }
}
