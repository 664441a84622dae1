package io.jccl.core;

import io.jccl.CollectiveFuture;
import io.jccl.ErrorCode;
import io.jccl.JcclException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@link CollectiveFuture} of one operation.
 *
 * <p>Two completions: {@code completion} is what waiters block on; {@code published} is where the futures
 * handed out by {@link #toCompletableFuture()} hang, and nobody waits on it. A thread blocked in
 * {@link CompletableFuture#get()} helps run the dependents of the future it waits on; were the callbacks
 * attached there, a waiter could run one operation's callbacks while another thread already completes the next
 * one's, breaking their issue order. This way they run on the thread that completes the operation — the executor
 * thread, or a caller driving the communicator while it waits ({@link Progress}) — one operation at a time, in
 * issue order.
 */
final class OpFuture implements CollectiveFuture {
    private final CompletableFuture<Void> completion = new CompletableFuture<>();
    /** Made on the first {@link #toCompletableFuture()}: most operations are only awaited. */
    private volatile CompletableFuture<Void> published;
    private static final VarHandle PUBLISHED = VarHandles.field(MethodHandles.lookup(), OpFuture.class, "published",
            CompletableFuture.class);
    private final Thread executorThread;
    /** What a waiter drives while it waits (caller-driven progress); null: only the executor thread progresses. */
    private final Progress progress;
    /**
     * How long {@link #await()} and {@link #get()} drive (or poll) without progress before blocking: a small operation
     * completes within it on the waiting thread, with no hand-over between threads. Shared by the communicator's
     * operations, which tell it how their waits went.
     */
    private final AwaitSpin spin;
    /** The operation's data per rank in bytes, for {@link AwaitSpin#spinNs(long)}; 0 when not known. */
    private final long opBytes;
    /** The communicator is stepped by its caller: a blocking wait would wait forever, so it is refused. */
    private final boolean stepped;
    /** How to wait in stepped mode instead, for the messages that refuse a blocking wait. */
    static final String STEPPED_HINT = "the thread that waits is the one that must step the communicator; poll "
            + "isDone() and error() between steps instead";
    private long position = -1;

    /** Never spins, never raised (nothing shares it). */
    private static final AwaitSpin NO_SPIN = new AwaitSpin(0);

    OpFuture(Thread executorThread) {
        this(executorThread, null, NO_SPIN, false, 0);
    }

    OpFuture(Thread executorThread, Progress progress, AwaitSpin spin, boolean stepped) {
        this(executorThread, progress, spin, stepped, 0);
    }

    /**
     * @param executorThread the communicator's thread (waiting on it for a pending operation is refused)
     * @param progress       what a waiter drives (the executor), or null
     * @param spin           how long a waiter drives without progress before it blocks ({@code JCCL_SPIN_US},
     *                       raised while blocking does not pay, then {@code JCCL_YIELD_US} yielding): a small
     *                       operation then completes on the waiting thread, without any hand-over
     * @param stepped        whether the communicator is stepped by its caller (blocking waits are refused)
     * @param opBytes        the operation's data per rank in bytes (a larger one spins longer), 0 when not known
     */
    OpFuture(Thread executorThread, Progress progress, AwaitSpin spin, boolean stepped, long opBytes) {
        this.executorThread = executorThread;
        this.progress = progress;
        this.spin = spin;
        this.stepped = stepped;
        this.opBytes = opBytes;
    }

    /** Set when a caller started waiting for the operation before it completed (it drives then). */
    private volatile boolean awaited;

    /** @return whether a caller waited for the operation before it completed */
    boolean awaited() {
        return awaited;
    }

    /** Records the operation's order key in its communicator's issue order ({@link CommExecutor#ORDER_SHIFT}). */
    void position(long position) {
        this.position = position;
    }

    /** @return the order key in issue order, or -1 before it was queued or handed over */
    long position() {
        return position;
    }

    static OpFuture completed() {
        OpFuture f = new OpFuture(null);
        f.complete();
        return f;
    }

    /**
     * What every operation that completed on the thread that issued it returns: a completed future holds no state
     * of its own, so one serves them all, and such a call allocates nothing.
     */
    static final OpFuture COMPLETED = completed();

    void complete() {
        completion.complete(null);   // first, so a callback that awaits this operation finds it complete
        CompletableFuture<Void> p = published;
        if (p != null) {
            p.complete(null);
        }
    }

    void fail(JcclException e) {
        completion.completeExceptionally(e);
        CompletableFuture<Void> p = published;
        if (p != null) {
            p.completeExceptionally(e);
        }
    }

    /** Set while the operation sits in a group that {@code owner} has open; null once launched. */
    private volatile Thread groupOwner;

    void heldByGroupOf(Thread owner) {
        this.groupOwner = owner;
    }

    private void checkNotExecutor() {
        if (stepped) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "cannot wait for an operation of a communicator "
                    + "stepped by its caller (deterministic simulation): " + STEPPED_HINT);
        }
        if (groupOwner == Thread.currentThread() && !completion.isDone()) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "this operation belongs to the group this thread has "
                    + "open; it starts at groupEnd(), so waiting for it now would wait forever");
        }
        if (!completion.isDone() && (Thread.currentThread() == executorThread
                || (progress != null && progress.isDrivenByCurrentThread()))) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "cannot wait for a pending operation on the "
                    + "communicator's own thread, or on a thread while it drives the communicator (from a completion "
                    + "callback or an operation listener): it would wait for itself");
        }
    }

    /**
     * Caller-driven progress: the waiting thread steps the communicator itself while the operation is not done, for
     * as long as steps keep progressing and then the spin time more, then the yield time more giving up its core
     * between passes (at most {@code maxNs} in all); then it hands over to the executor thread and the caller blocks.
     * Without a spin time (more busy threads than cores) the yields let a peer of this core run at once, and this
     * thread sees its data on its next turn with no wake-up paid; with neither it makes the progress that is
     * possible at once and then blocks, leaving the cores to the peers.
     */
    private void driveUntilDone(long maxNs) {
        if (completion.isDone()) {
            return;
        }
        long spinNs = spin.spinNs(opBytes);
        long driveNs = spinNs + spin.yieldNs();
        if (progress == null) {
            spinUntilDone(Math.min(spinNs, maxNs), Math.min(driveNs, maxNs));
            return;
        }
        awaited = true;
        // The clock is first read after a pass that ran out of work: a small operation completes before that.
        long start = 0;
        long lastWorkNs = 0;
        progress.callerWaiting(true);
        try {
            while (!completion.isDone()) {
                if (progress.tryDrive()) {
                    try {
                        int idle = 0;
                        while (!completion.isDone()) {
                            if (progress.step() > 0) {
                                idle = 0;
                                lastWorkNs = 0;
                            } else if ((++idle & 63) == 0) {
                                break;   // look at the clock now and then, off the driving flag
                            } else {
                                Thread.onSpinWait();
                            }
                        }
                    } finally {
                        progress.stopDriving();
                    }
                }
                if (completion.isDone()) {
                    return;
                }
                long now = System.nanoTime();
                if (start == 0) {
                    start = now;
                }
                if (lastWorkNs == 0) {
                    lastWorkNs = now;
                }
                long idleNs = now - lastWorkNs;
                if (idleNs >= driveNs || now - start >= maxNs) {
                    return;   // hand over: the executor thread carries on while this one blocks
                }
                if (idleNs >= spinNs) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
            }
        } finally {
            progress.callerWaiting(false);
        }
    }

    /**
     * Polls for completion for at most {@code budgetNs}, busy for the first {@code spinNs} and yielding after; then
     * the caller blocks.
     */
    private void spinUntilDone(long spinNs, long budgetNs) {
        if (budgetNs <= 0 || completion.isDone()) {
            return;
        }
        long start = System.nanoTime();
        int i = 0;
        boolean yielding = spinNs == 0;
        while (!completion.isDone()) {
            if (yielding) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
            if (yielding || (++i & 63) == 0) {
                long elapsedNs = System.nanoTime() - start;
                if (elapsedNs > budgetNs) {
                    return;
                }
                yielding = elapsedNs >= spinNs;
            }
        }
    }

    @Override
    public void await() {
        checkNotExecutor();
        driveUntilDone(Long.MAX_VALUE);
        try {
            waitAndTell();
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
        long timeoutNs = timeout.toNanos();
        driveUntilDone(timeoutNs);
        try {
            completion.get(timeoutNs, TimeUnit.NANOSECONDS);
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
        if (completion.isDone()) {
            // The published future trails the completion by a moment (complete() sets the completion first): a
            // caller that saw the operation done gets a future that is done too.
            return completion.copy();
        }
        CompletableFuture<Void> p = published;
        if (p == null) {
            CompletableFuture<Void> made = new CompletableFuture<>();
            p = PUBLISHED.compareAndSet(this, null, made) ? made : published;
            // The completion first, then its read of this field; here the field first, then the completion's state:
            // one of the two sees the other, so a completion that missed the new future is carried over here.
            if (completion.isDone()) {
                CompletableFuture<Void> target = p;
                completion.whenComplete((v, e) -> {
                    if (e == null) {
                        target.complete(null);
                    } else {
                        target.completeExceptionally(e);
                    }
                });
            }
        }
        return p.copy();
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
        driveUntilDone(Long.MAX_VALUE);
        waitAndTell();
        return null;
    }

    /**
     * Waits for completion after driving, and tells the spin how it went: completed while driving, or blocked for
     * how long. A failed operation throws as {@link CompletableFuture#get()} does.
     */
    private void waitAndTell() throws InterruptedException, ExecutionException {
        if (completion.isDone()) {
            spin.completedWithoutBlocking();
            completion.get();
            return;
        }
        long blockStart = System.nanoTime();
        try {
            completion.get();
        } finally {
            spin.blocked(System.nanoTime() - blockStart);
        }
    }

    @Override
    public Void get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        checkNotExecutor();
        driveUntilDone(unit.toNanos(timeout));
        return completion.get(timeout, unit);
    }
}
