package io.jccl.bootstrap;

import io.jccl.JcclException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/** Runs ranks as threads, with bounded waits so that a broken test fails instead of hanging. */
final class Ranks {
    /** A bound for the test itself, far above anything a passing test needs. */
    static final long TEST_BOUND_SECONDS = 60;

    private Ranks() {
    }

    static <T> List<CompletableFuture<T>> run(int n, IntFunction<T> body) {
        List<CompletableFuture<T>> futures = new ArrayList<>();
        for (int rank = 0; rank < n; rank++) {
            int r = rank;
            futures.add(async("rank-" + r, () -> body.apply(r)));
        }
        return futures;
    }

    static <T> CompletableFuture<T> async(String name, Supplier<T> body) {
        CompletableFuture<T> future = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("test-" + name).start(() -> {
            try {
                future.complete(body.get());
            } catch (Throwable t) {
                future.completeExceptionally(t);
            }
        });
        return future;
    }

    static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get(TEST_BOUND_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("the rank failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            return fail("the rank did not finish within " + TEST_BOUND_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail("interrupted");
        }
    }

    static <T> List<T> awaitAll(List<CompletableFuture<T>> futures) {
        return futures.stream().map(Ranks::await).toList();
    }

    /** @return the JcclException the future failed with */
    static JcclException failure(CompletableFuture<?> future) {
        try {
            Object value = future.get(TEST_BOUND_SECONDS, TimeUnit.SECONDS);
            return fail("expected a failure, got " + value);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(JcclException.class);
            return (JcclException) e.getCause();
        } catch (TimeoutException e) {
            return fail("the rank did not finish within " + TEST_BOUND_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail("interrupted");
        }
    }
}
