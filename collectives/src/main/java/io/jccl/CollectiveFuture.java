package io.jccl;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/**
 * The pending result of an operation. Operations on one communicator complete in the order they were issued.
 * A failed operation completes with a {@link JcclException}; {@link #await()} throws it directly, while
 * {@link #get()} wraps it in an {@link java.util.concurrent.ExecutionException} as {@link Future} requires.
 *
 * <p>Cancelling is not supported ({@link #cancel(boolean)} returns false): an operation in flight involves
 * other ranks. Use {@link Communicator#abort()} to stop everything.
 */
public interface CollectiveFuture extends Future<Void> {
    /**
     * Waits until the operation completes.
     *
     * @throws JcclException when it failed (the original exception, not a wrapper); also when the waiting
     *                       thread is interrupted (code {@link ErrorCode#SYSTEM_ERROR}, interrupt flag kept)
     */
    void await();

    /**
     * Waits at most {@code timeout}.
     *
     * @param timeout how long to wait
     * @return true when the operation completed successfully in time, false when still pending
     * @throws JcclException when it failed
     */
    boolean await(Duration timeout);

    /** @return the failure, if the operation completed with one */
    Optional<JcclException> error();

    /**
     * Callbacks attached to it run on the thread that completes the operation: the communicator's own thread, or a
     * thread that waits for an operation of the communicator and so drives it; one operation at a time, in issue
     * order. Attached to an operation already complete — such as a small collective its issuing thread ran to the
     * end inside the call — they run at once on the attaching thread, as {@link CompletableFuture}'s do. Waiting for
     * a pending operation of the same communicator from a callback is refused.
     *
     * @return a {@link CompletableFuture} that completes with this operation (completing it has no effect here); one
     *         asked for once {@link #isDone()} said true is complete already
     */
    CompletableFuture<Void> toCompletableFuture();
}
