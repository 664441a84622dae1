package io.jccl.api;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.jccl.DataType.FLOAT32;
import static io.jccl.DataType.INT32;
import static io.jccl.ReduceOp.SUM;
import static io.jccl.api.CommAssertions.HANG;
import static io.jccl.api.CommAssertions.assertCodeAndMessage;
import static io.jccl.api.CommAssertions.assertThrowsJccl;
import static io.jccl.api.CommAssertions.awaitFailure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Communicator#abort()}: pending and queued operations of the aborted rank fail with ABORTED, the other
 * ranks' operations fail with REMOTE_ERROR naming it instead of hanging, abort is idempotent, and close after
 * abort (or abort after close) is harmless. The operation timeout is long (60 s), so nothing here can pass by
 * timing out.
 */
class AbortTest {
    @RegisterExtension
    final LocalRanks ranks = new LocalRanks();
    private List<Communicator> comms;

    @BeforeEach
    void setUp() {
        comms = ranks.start(3, Duration.ofSeconds(60));
    }

    private MemorySegment buf() {
        return ranks.buffer();
    }

    private static void assertNamesAbortedRank(JcclException e, int aborted) {
        assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.REMOTE_ERROR);
        assertThat(e.detail()).contains("rank " + aborted);
    }

    @Test
    void abortFailsPendingAndQueuedOperationsAndPeersLearn() {
        Communicator c0 = comms.get(0);
        // Everybody waits: rank 0 for rank 1, ranks 1 and 2 for rank 0 (receives nobody sends).
        CollectiveFuture pending = c0.recv(Buffer.of(buf()), 10, FLOAT32, 1);
        CollectiveFuture queued1 = c0.allReduce(Buffer.of(buf()), Buffer.of(buf()), 10, FLOAT32, SUM);
        CollectiveFuture queued2 = c0.barrier();
        CollectiveFuture peer1 = comms.get(1).recv(Buffer.of(buf()), 10, FLOAT32, 0);
        CollectiveFuture peer2 = comms.get(2).allReduce(Buffer.of(buf()), Buffer.of(buf()), 10, FLOAT32, SUM);
        assertThat(pending.isDone()).isFalse();

        c0.abort();

        for (CollectiveFuture f : List.of(pending, queued1, queued2)) {
            awaitFailure(f, ErrorCode.ABORTED, "rank 0", "aborted");
        }
        assertNamesAbortedRank(awaitFailure(peer1), 0);
        assertNamesAbortedRank(awaitFailure(peer2), 0);
        assertThat(c0.asyncError()).isPresent();
        assertThat(c0.asyncError().get().code()).isEqualTo(ErrorCode.ABORTED);
        for (int r = 1; r < 3; r++) {
            assertNamesAbortedRank(MismatchTest.awaitAsyncError(comms.get(r)), 0);
            // Later operations fail fast with the same code.
            assertNamesAbortedRank(awaitFailure(comms.get(r).barrier()), 0);
        }
    }

    @Test
    void abortReturnsPromptlyAndCompletesFuturesBeforeReturning() throws Exception {
        Communicator c0 = comms.get(0);
        List<CollectiveFuture> fs = new ArrayList<>();
        fs.add(c0.allReduce(Buffer.of(buf()), Buffer.of(buf()), 100, INT32, SUM));
        for (int i = 0; i < 20; i++) {
            fs.add(c0.broadcast(Buffer.of(buf()), 100, INT32, 0));
        }
        // abort runs on another thread; the bound only turns a hang into a failure.
        CompletableFuture<Void> aborting = CompletableFuture.runAsync(c0::abort, CommAssertions.daemonPool());
        aborting.get(HANG.toSeconds(), TimeUnit.SECONDS);
        for (CollectiveFuture f : fs) {
            assertThat(f.isDone()).as("completed by the time abort returned").isTrue();
            assertThat(f.error()).isPresent();
            assertThat(f.error().get().code()).isEqualTo(ErrorCode.ABORTED);
        }
    }

    @Test
    void abortOfAnIdleCommunicatorFailsPeersThatWaitForIt() {
        CollectiveFuture f0 = comms.get(0).allReduce(Buffer.of(buf()), Buffer.of(buf()), 100, FLOAT32, SUM);
        CollectiveFuture f1 = comms.get(1).allReduce(Buffer.of(buf()), Buffer.of(buf()), 100, FLOAT32, SUM);
        comms.get(2).abort();   // idle: it never issued the all-reduce
        assertNamesAbortedRank(awaitFailure(f0), 2);
        assertNamesAbortedRank(awaitFailure(f1), 2);
        assertThat(comms.get(2).asyncError().orElseThrow().code()).isEqualTo(ErrorCode.ABORTED);
    }

    @Test
    void abortOfAnIdleCommunicatorWithIdlePeers() {
        comms.get(1).abort();
        for (int r : new int[] {0, 2}) {
            assertNamesAbortedRank(MismatchTest.awaitAsyncError(comms.get(r)), 1);
            assertNamesAbortedRank(awaitFailure(comms.get(r).allReduce(Buffer.of(buf()), Buffer.of(buf()), 1, FLOAT32,
                    SUM)), 1);
        }
        assertThrowsJccl(ErrorCode.INVALID_USAGE, () -> comms.get(1).barrier(), "aborted");
    }

    @Test
    void abortIsIdempotentAndCloseAfterAbortIsFine() {
        Communicator c0 = comms.get(0);
        CollectiveFuture f = c0.barrier();
        c0.abort();
        c0.abort();
        c0.close();
        c0.close();
        c0.abort();
        awaitFailure(f, ErrorCode.ABORTED);
        assertThrowsJccl(ErrorCode.INVALID_USAGE, c0::barrier, "aborted");
        assertThrowsJccl(ErrorCode.INVALID_USAGE, c0::groupStart, "aborted");
        assertThat(c0.asyncError().orElseThrow().code()).isEqualTo(ErrorCode.ABORTED);
    }

    @Test
    void abortAfterCloseIsFine() {
        List<CollectiveFuture> fs = new ArrayList<>();
        for (Communicator c : comms) {
            fs.add(c.allReduce(Buffer.of(buf()), Buffer.of(buf()), 10, FLOAT32, SUM));
        }
        CommAssertions.awaitAll(fs);
        CompletableFuture<?>[] closing = comms.stream()
                .map(c -> CompletableFuture.runAsync(c::close, CommAssertions.daemonPool()))
                .toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(closing).join();
        comms.get(0).abort();
        assertThrowsJccl(ErrorCode.INVALID_USAGE, comms.get(0)::barrier, "closed");
        assertThat(comms.get(0).asyncError()).as("a closed communicator is not a failed one").isEmpty();
    }

    @Test
    void abortUnblocksACloseThatWaitsForAPendingOperation() throws Exception {
        Communicator c0 = comms.get(0);
        CollectiveFuture f = c0.allReduce(Buffer.of(buf()), Buffer.of(buf()), 10, FLOAT32,
                SUM);   // the peers never join
        CompletableFuture<Void> closing = CompletableFuture.runAsync(c0::close, CommAssertions.daemonPool());
        assertThat(f.await(Duration.ofMillis(50))).as("close waits for the operation").isFalse();
        c0.abort();
        closing.get(HANG.toSeconds(), TimeUnit.SECONDS);
        awaitFailure(f, ErrorCode.ABORTED);
        for (int r = 1; r < 3; r++) {
            assertNamesAbortedRank(MismatchTest.awaitAsyncError(comms.get(r)), 0);
        }
    }

    @Test
    void abortFromManyThreadsAtOnce() throws Exception {
        Communicator c0 = comms.get(0);
        CollectiveFuture f = c0.allReduce(Buffer.of(buf()), Buffer.of(buf()), 10, FLOAT32, SUM);
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<Void>> aborts = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            aborts.add(CompletableFuture.runAsync(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                c0.abort();
            }, CommAssertions.daemonPool()));
        }
        go.countDown();
        CompletableFuture.allOf(aborts.toArray(new CompletableFuture[0])).get(HANG.toSeconds(), TimeUnit.SECONDS);
        awaitFailure(f, ErrorCode.ABORTED);
    }

    @Test
    void abortFromACompletionCallback() {
        Communicator c0 = comms.get(0);
        CollectiveFuture first0 = c0.allReduce(Buffer.of(buf()), Buffer.of(buf()), 10, FLOAT32, SUM);
        AtomicReference<Throwable> problem = new AtomicReference<>();
        AtomicReference<String> callbackThread = new AtomicReference<>();
        CountDownLatch aborted = new CountDownLatch(1);
        // Attached before the peers issue their part, so it runs on rank 0's own thread when first0 completes.
        first0.toCompletableFuture().thenRun(() -> {
            try {
                callbackThread.set(Thread.currentThread().getName());
                c0.abort();   // must not wait for its own thread
            } catch (Throwable t) {
                problem.set(t);
            } finally {
                aborted.countDown();
            }
        });
        CollectiveFuture second = c0.allReduce(Buffer.of(buf()), Buffer.of(buf()), 10, FLOAT32, SUM);
        List<CollectiveFuture> others = List.of(comms.get(1).allReduce(Buffer.of(buf()), Buffer.of(buf()), 10, FLOAT32,
                SUM),
                comms.get(2).allReduce(Buffer.of(buf()), Buffer.of(buf()), 10, FLOAT32, SUM));
        CommAssertions.awaitSuccess(first0);
        // Rank 0 may finish its part and abort while the peers still finish theirs; then they learn of the abort.
        for (CollectiveFuture other : others) {
            try {
                other.await();
            } catch (io.jccl.JcclException e) {
                assertCodeAndMessage(e, ErrorCode.REMOTE_ERROR, "rank 0", "aborted");
            }
        }
        try {
            assertThat(aborted.await(HANG.toSeconds(), TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertThat(problem.get()).isNull();
        String self = Thread.currentThread().getName();
        assertThat(callbackThread.get()).satisfiesAnyOf(t -> assertThat(t).startsWith("jccl-"),
                t -> assertThat(t).isEqualTo(self));   // the communicator's thread, or this one while it awaited
        assertCodeAndMessage(awaitFailure(second), ErrorCode.ABORTED, "aborted");
    }
}
