package io.jccl.api;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.ReduceOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntBinaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Assertions shared by the Communicator behaviour tests: expected failures with their code and message,
 * futures that must fail within a generous bound (only to turn a hang into a failure, never to measure
 * time), buffer patterns, and a check that a communicator set still computes correctly.
 */
final class CommAssertions {
    /** Upper bound for anything that should happen "promptly": generous, so that it only catches hangs. */
    static final Duration HANG = Duration.ofSeconds(30);

    private CommAssertions() {
    }

    /** A call that must throw at once. */
    @FunctionalInterface
    interface Call {
        void run();
    }

    /**
     * Asserts that {@code call} throws a {@link JcclException} with {@code code} whose detail contains every
     * fragment.
     */
    static JcclException assertThrowsJccl(ErrorCode code, Call call, String... fragments) {
        try {
            call.run();
        } catch (JcclException e) {
            assertCodeAndMessage(e, code, fragments);
            return e;
        }
        return fail("expected a JcclException " + code + " mentioning " + List.of(fragments) + ", nothing thrown");
    }

    static void assertCodeAndMessage(JcclException e, ErrorCode code, String... fragments) {
        assertThat(e.code()).as("code of: %s", e.getMessage()).isEqualTo(code);
        for (String f : fragments) {
            assertThat(e.detail()).as("message of %s", e.getMessage()).contains(f);
        }
    }

    /** Waits (at most {@link #HANG}) for a future that must fail, and returns its failure. */
    static JcclException awaitFailure(CollectiveFuture f) {
        try {
            if (!f.await(HANG)) {
                return fail("the operation neither completed nor failed within " + HANG + " (hang)");
            }
        } catch (JcclException e) {
            assertThat(f.error()).isPresent();
            return e;
        }
        return fail("the operation succeeded but was expected to fail");
    }

    /** Waits for a future that must fail with {@code code} and a detail containing every fragment. */
    static JcclException awaitFailure(CollectiveFuture f, ErrorCode code, String... fragments) {
        JcclException e = awaitFailure(f);
        assertCodeAndMessage(e, code, fragments);
        return e;
    }

    /** Waits (at most {@link #HANG}) for a future that must succeed. */
    static void awaitSuccess(CollectiveFuture f) {
        if (!f.await(HANG)) {
            fail("the operation did not complete within " + HANG + " (hang)");
        }
    }

    static void awaitAll(List<CollectiveFuture> fs) {
        for (CollectiveFuture f : fs) {
            awaitSuccess(f);
        }
    }

    /** Fills a segment with a position-dependent byte pattern derived from {@code seed}. */
    static void fillPattern(MemorySegment s, int seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, patternByte(seed, i));
        }
    }

    static byte patternByte(int seed, long i) {
        return (byte) (seed * 31 + i * 7 + 0x5B);
    }

    static void assertPattern(MemorySegment s, int seed, String what) {
        for (long i = 0; i < s.byteSize(); i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != patternByte(seed, i)) {
                fail(what + ": byte " + i + " was changed (0x"
                        + Integer.toHexString(s.get(ValueLayout.JAVA_BYTE, i) & 0xFF) + ", pattern 0x"
                        + Integer.toHexString(patternByte(seed, i) & 0xFF) + ")");
            }
        }
    }

    /**
     * Runs an INT32 sum all-reduce of {@code count} elements on every rank and checks the result exactly:
     * proves the communicators still work together.
     */
    static void assertAllReduceWorks(List<Communicator> comms, int count) {
        int n = comms.size();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] send = intsPerRank(arena, n, count, (r, i) -> (r + 1) * 1000 + i);
            MemorySegment[] recv = segmentsPerRank(arena, n, 4L * count);
            List<CollectiveFuture> fs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                fs.add(comms.get(r).allReduce(Buffer.of(send[r]), Buffer.of(recv[r]), count, DataType.INT32,
                        ReduceOp.SUM));
            }
            awaitAll(fs);
            for (int r = 0; r < n; r++) {
                for (int i = 0; i < count; i++) {
                    int want = 1000 * n * (n + 1) / 2 + n * i;
                    assertThat(recv[r].getAtIndex(ValueLayout.JAVA_INT, i)).as("rank %d element %d", r, i)
                            .isEqualTo(want);
                }
            }
        }
    }

    /** @return one zeroed segment of {@code bytes} per rank of {@code n}, from {@code arena} */
    static MemorySegment[] segmentsPerRank(Arena arena, int n, long bytes) {
        MemorySegment[] segments = new MemorySegment[n];
        for (int r = 0; r < n; r++) {
            segments[r] = arena.allocate(bytes);
        }
        return segments;
    }

    /** @return one segment of {@code count} INT32 per rank of {@code n}, element i of rank r holding value(r, i) */
    static MemorySegment[] intsPerRank(Arena arena, int n, int count, IntBinaryOperator value) {
        MemorySegment[] segments = segmentsPerRank(arena, n, 4L * count);
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < count; i++) {
                segments[r].setAtIndex(ValueLayout.JAVA_INT, i, value.applyAsInt(r, i));
            }
        }
        return segments;
    }

    /** Runs one task per rank on its own thread (for blocking calls such as split) and returns the results. */
    static <T> List<T> onEveryRank(int n, RankTask<T> task) {
        ExecutorService pool = Executors.newFixedThreadPool(n, Thread.ofPlatform().daemon().factory());
        try {
            List<Future<T>> fs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                int rank = r;
                fs.add(pool.submit((Callable<T>) () -> task.run(rank)));
            }
            List<T> out = new ArrayList<>();
            for (Future<T> f : fs) {
                out.add(f.get(HANG.toSeconds(), TimeUnit.SECONDS));
            }
            return out;
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new AssertionError(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            return fail("a rank did not finish within " + HANG + " (hang)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Work for one rank. */
    @FunctionalInterface
    interface RankTask<T> {
        T run(int rank) throws Exception;
    }

    private static final ExecutorService DAEMONS =
            Executors.newCachedThreadPool(Thread.ofPlatform().daemon().name("test-worker-", 0).factory());

    /** A pool of daemon threads for work that runs beside the test thread. */
    static ExecutorService daemonPool() {
        return DAEMONS;
    }

    /** Aborts every communicator of a set (prompt, also for broken ones). */
    static void abortAll(List<Communicator> comms) {
        if (comms != null) {
            comms.forEach(Communicator::abort);
        }
    }
}
