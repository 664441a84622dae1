package io.jccl.core;

import io.jccl.CollectiveFuture;
import io.jccl.ErrorCode;
import io.jccl.JcclException;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The {@link CollectiveFuture} of one operation. */
final class OpFuture implements CollectiveFuture {
    private final CompletableFuture<Void> completion = new CompletableFuture<>();
    private final Thread executorThread;

    OpFuture(Thread executorThread) {
        this.executorThread = executorThread;
    }

    static OpFuture completed() {
        OpFuture f = new OpFuture(null);
        f.complete();
        return f;
    }

    void complete() {
        completion.complete(null);
    }

    void fail(JcclException e) {
        completion.completeExceptionally(e);
    }

    private void checkNotExecutor() {
        if (Thread.currentThread() == executorThread && !completion.isDone()) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "cannot wait for a pending operation on the "
                    + "communicator's own thread (from a completion callback): it would wait for itself");
        }
    }

    @Override
    public void await() {
        checkNotExecutor();
        try {
            completion.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "interrupted while waiting for a JCCL operation", e);
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
    }

    @Override
    public boolean await(Duration timeout) {
        checkNotExecutor();
        try {
            completion.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "interrupted while waiting for a JCCL operation", e);
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
    }

    private static JcclException unwrap(ExecutionException e) {
        Throwable c = e.getCause();
        if (c instanceof JcclException je) {
            // A fresh exception with the waiter's stack, keeping the original as cause.
            return new JcclException(je.code(), je.detail(), je);
        }
        return new JcclException(ErrorCode.INTERNAL_ERROR, "operation failed unexpectedly: " + c, c);
    }

    @Override
    public Optional<JcclException> error() {
        if (!completion.isCompletedExceptionally()) {
            return Optional.empty();
        }
        try {
            completion.join();
            return Optional.empty();
        } catch (java.util.concurrent.CompletionException e) {
            return e.getCause() instanceof JcclException je ? Optional.of(je)
                    : Optional.of(new JcclException(ErrorCode.INTERNAL_ERROR, String.valueOf(e.getCause()), e.getCause()));
        }
    }

    @Override
    public CompletableFuture<Void> toCompletableFuture() {
        return completion.copy();
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return false;
    }

    @Override
    public boolean isCancelled() {
        return false;
    }

    @Override
    public boolean isDone() {
        return completion.isDone();
    }

    @Override
    public Void get() throws InterruptedException, ExecutionException {
        checkNotExecutor();
        return completion.get();
    }

    @Override
    public Void get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        checkNotExecutor();
        return completion.get(timeout, unit);
    }
}
