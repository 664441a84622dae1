package io.jccl.core;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The futures handed out by {@link OpFuture#toCompletableFuture()}, made only when asked for. */
class OpFutureTest {
    @Test
    void aFutureAskedForBeforeCompletionCompletesWithTheOperation() {
        OpFuture f = new OpFuture(null);
        CompletableFuture<Void> before = f.toCompletableFuture();
        assertThat(before).isNotDone();
        f.complete();
        assertThat(before).isCompletedWithValue(null);
        assertThat(f.toCompletableFuture()).isCompletedWithValue(null);
    }

    @Test
    void aFutureAskedForAfterAFailureCarriesTheFailure() {
        OpFuture f = new OpFuture(null);
        JcclException e = new JcclException(ErrorCode.TIMEOUT, "late");
        f.fail(e);
        CompletableFuture<Void> after = f.toCompletableFuture();
        assertThat(after).isCompletedExceptionally();
        assertThat(after.handle((v, t) -> t).join()).as("wrapped, as CompletableFuture.copy() does").hasCauseReference(e);
    }

    @Test
    void aFutureAskedForOnceTheOperationIsDoneIsDoneEvenBeforeThePublishedOneCompletes() throws Exception {
        OpFuture f = new OpFuture(null);
        CompletableFuture<Void> before = f.toCompletableFuture();
        // The moment inside complete() after the waiters' completion and before the published future's.
        completionOf(f).complete(null);
        assertThat(f.isDone()).isTrue();
        assertThat(f.toCompletableFuture()).as("asked for after isDone()").isCompletedWithValue(null);
        assertThat(before).as("the published one completes with complete()").isNotDone();
        f.complete();
        assertThat(before).isCompletedWithValue(null);
    }

    @Test
    void aFailedOperationsFutureAskedForBeforeThePublishedOneFailsCarriesTheFailure() throws Exception {
        OpFuture f = new OpFuture(null);
        f.toCompletableFuture();
        JcclException e = new JcclException(ErrorCode.TIMEOUT, "late");
        completionOf(f).completeExceptionally(e);
        CompletableFuture<Void> after = f.toCompletableFuture();
        assertThat(after).isCompletedExceptionally();
        assertThat(after.handle((v, t) -> t).join()).hasCauseReference(e);
    }

    @SuppressWarnings("unchecked")
    private static CompletableFuture<Void> completionOf(OpFuture f) throws ReflectiveOperationException {
        var field = OpFuture.class.getDeclaredField("completion");
        field.setAccessible(true);
        return (CompletableFuture<Void>) field.get(f);
    }

    @Test
    void completionRacingWithTheFirstRequestIsNeverLost() throws Exception {
        CyclicBarrier start = new CyclicBarrier(2);
        for (int i = 0; i < 2_000; i++) {
            OpFuture f = new OpFuture(null);
            Thread completer = Thread.ofPlatform().start(() -> {
                await(start);
                f.complete();
            });
            await(start);
            CompletableFuture<Void> got = f.toCompletableFuture();
            completer.join();
            got.get(10, TimeUnit.SECONDS);   // a lost completion would hang here
            assertThat(f.toCompletableFuture()).isCompletedWithValue(null);
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
