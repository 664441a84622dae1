package io.jccl.net;

/**
 * Wakes the thread that drives a connection. Transports whose requests complete on other threads call
 * {@link #signal()} after each completion; the call must be cheap and must never block.
 */
@FunctionalInterface
public interface ProgressSignal {
    /** A signal that does nothing, for callers that poll. */
    ProgressSignal NONE = () -> { };

    /** Something completed: the driving thread should look again. */
    void signal();
}
