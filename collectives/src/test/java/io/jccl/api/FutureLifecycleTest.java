package io.jccl.api;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.jccl.DataType.FLOAT32;
import static io.jccl.DataType.INT32;
import static io.jccl.ReduceOp.SUM;
import static io.jccl.api.CommAssertions.HANG;
import static io.jccl.api.CommAssertions.assertThrowsJccl;
import static io.jccl.api.CommAssertions.awaitAll;
import static io.jccl.api.CommAssertions.awaitFailure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Futures and lifecycle: completion in issue order (callbacks run on the communicator's thread in that
 * order), waiting from a callback is refused instead of deadlocking, {@code synchronize()}, {@code close()}
 * waiting for issued operations, and a small queue ({@code maxPendingOps(4)}) filled from several threads.
 */
class FutureLifecycleTest {
    private final List<List<Communicator>> created = new ArrayList<>();
    private final Arena arena = Arena.ofShared();

    private List<Communicator> local(int n, CommConfig config) {
        List<Communicator> comms = Communicator.local(n, config);
        created.add(comms);
        return comms;
    }

    private List<Communicator> local(int n) {
        return local(n, CommConfig.builder().opTimeout(Duration.ofSeconds(30)).build());
    }

    @AfterEach
    void tearDown() {
        created.forEach(CommAssertions::abortAll);
        arena.close();
    }

    private MemorySegment ints(int n, int v) {
        MemorySegment s = arena.allocate(4L * n);
        for (int i = 0; i < n; i++) {
            s.setAtIndex(ValueLayout.JAVA_INT, i, v);
        }
        return s;
    }

    /** Issues operation i of a mixed sequence on one rank. */
    private CollectiveFuture op(Communicator c, int i) {
        int n = c.size();
        return switch (i % 5) {
            case 0 -> c.allReduce(Buffer.of(ints(1000, 1)), Buffer.of(arena.allocate(4000)), 1000, INT32, SUM);
            case 1 -> c.broadcast(Buffer.of(ints(10, 7)), 10, INT32, i % n);
            case 2 -> c.barrier();
            case 3 -> c.group(g -> {
                g.send(Buffer.of(ints(5, c.rank())), 5, INT32, (c.rank() + 1) % n);
                g.recv(Buffer.of(arena.allocate(20)), 5, INT32, (c.rank() - 1 + n) % n);
            });
            default -> c.allGather(Buffer.of(ints(3, c.rank())), Buffer.of(arena.allocate(12L * n)), 3, INT32);
        };
    }

    @Test
    void operationsCompleteInIssueOrderOnTheThreadThatDrives() {
        List<Communicator> comms = local(3);
        int ops = 60;
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        List<String> threads = Collections.synchronizedList(new ArrayList<>());
        List<CollectiveFuture> fs = new ArrayList<>();
        for (int i = 0; i < ops; i++) {
            int index = i;
            CollectiveFuture f = op(comms.get(0), i);
            // Attached while pending: the peers have not issued anything yet.
            f.toCompletableFuture().whenComplete((v, t) -> {
                order.add(index);
                threads.add(Thread.currentThread().getName());
            });
            fs.add(f);
        }
        assertThat(fs).noneMatch(CollectiveFuture::isDone);
        List<CollectiveFuture> peers = new ArrayList<>();
        for (int i = 0; i < ops; i++) {
            for (int r = 1; r < 3; r++) {
                peers.add(op(comms.get(r), i));
            }
        }
        awaitAll(fs);
        awaitAll(peers);
        long until = System.nanoTime() + HANG.toNanos();
        while (order.size() < ops && System.nanoTime() < until) {
            Thread.yield();
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < ops; i++) {
            expected.add(i);
        }
        assertThat(order).isEqualTo(expected);
        // On the thread that drove rank 0 when the operation completed: its own thread, or this one while it waited
        // (caller-driven progress); in issue order either way.
        String self = Thread.currentThread().getName();
        assertThat(threads).allSatisfy(t -> assertThat(t.equals(self) || t.startsWith("jccl-") && t.endsWith("-r0"))
                .as("callback thread %s", t).isTrue());
    }

    @Test
    void awaitFromACallbackIsRefusedInsteadOfDeadlocking() throws Exception {
        List<Communicator> comms = local(2);
        Communicator c0 = comms.get(0);
        CollectiveFuture first = c0.barrier();
        CollectiveFuture second = c0.barrier();
        AtomicReference<JcclException> awaitRefused = new AtomicReference<>();
        AtomicReference<JcclException> getRefused = new AtomicReference<>();
        AtomicReference<JcclException> synchronizeRefused = new AtomicReference<>();
        AtomicReference<Boolean> completedOneIsFine = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        first.toCompletableFuture().thenRun(() -> {
            try {
                awaitRefused.set(catchJccl(second::await));
                getRefused.set(catchJccl(() -> {
                    try {
                        second.get(1, TimeUnit.SECONDS);
                    } catch (InterruptedException | ExecutionException | java.util.concurrent.TimeoutException e) {
                        throw new AssertionError(e);
                    }
                }));
                synchronizeRefused.set(catchJccl(c0::synchronize));
                first.await();   // already complete: fine
                completedOneIsFine.set(first.await(Duration.ZERO));
            } finally {
                ran.countDown();
            }
        });
        awaitAll(List.of(comms.get(1).barrier(), comms.get(1).barrier()));
        assertThat(ran.await(HANG.toSeconds(), TimeUnit.SECONDS)).isTrue();
        for (AtomicReference<JcclException> r : List.of(awaitRefused, getRefused, synchronizeRefused)) {
            assertThat(r.get()).isNotNull();
            CommAssertions.assertCodeAndMessage(r.get(), ErrorCode.INVALID_USAGE, "own thread");
        }
        assertThat(completedOneIsFine.get()).isTrue();
        CommAssertions.awaitSuccess(second);
        CommAssertions.assertAllReduceWorks(comms, 4);
    }

    private static JcclException catchJccl(Runnable r) {
        try {
            r.run();
            return null;
        } catch (JcclException e) {
            return e;
        }
    }

    @Test
    void synchronizeWaitsForEverythingIssuedAndReportsFailures() {
        List<Communicator> comms = local(2);
        comms.get(0).synchronize();   // nothing issued: returns at once
        List<CollectiveFuture> fs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            for (Communicator c : comms) {
                fs.add(op(c, i));
            }
        }
        for (Communicator c : comms) {
            c.synchronize();
        }
        assertThat(fs).allMatch(CollectiveFuture::isDone);
        assertThat(fs).allMatch(f -> f.error().isEmpty());
        // A failure (a count mismatch) reaches synchronize.
        comms.get(0).allReduce(Buffer.of(ints(4, 1)), Buffer.of(arena.allocate(16)), 4, INT32, SUM);
        comms.get(1).allReduce(Buffer.of(ints(5, 1)), Buffer.of(arena.allocate(20)), 5, INT32, SUM);
        JcclException e = CommAssertions.assertThrowsJccl(ErrorCode.INVALID_USAGE, comms.get(0)::synchronize,
                "do not match");
        assertThat(e.detail()).containsAnyOf("count 4 vs 5", "count 5 vs 4");
    }

    @Test
    void synchronizeCoversOperationsIssuedByOtherThreads() throws Exception {
        List<Communicator> comms = local(2);
        for (int round = 0; round < 20; round++) {
            List<CompletableFuture<List<CollectiveFuture>>> issuers = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                issuers.add(CompletableFuture.supplyAsync(() -> {
                    List<CollectiveFuture> mine = new ArrayList<>();
                    for (int i = 0; i < 5; i++) {
                        for (Communicator c : comms) {
                            mine.add(c.allReduce(Buffer.of(ints(64, 1)), Buffer.of(arena.allocate(256)), 64, INT32,
                                    SUM));
                        }
                    }
                    return mine;
                }, CommAssertions.daemonPool()));
            }
            List<CollectiveFuture> all = new ArrayList<>();
            for (CompletableFuture<List<CollectiveFuture>> f : issuers) {
                all.addAll(f.get(HANG.toSeconds(), TimeUnit.SECONDS));
            }
            // Every issuing call has returned: synchronize must cover all of them.
            for (Communicator c : comms) {
                c.synchronize();
            }
            assertThat(all).allMatch(CollectiveFuture::isDone);
        }
    }

    /**
     * A small operation its issuing thread could not finish at once (the peer has not issued yet) is handed over
     * unfinished; {@code synchronize()} waits for it, also when it is the second such since anything was queued (the
     * two get increasing order keys: with equal ones, synchronize waited only for the first, long complete).
     */
    @Test
    void synchronizeWaitsForASmallOperationHandedOverUnfinished() throws Exception {
        List<Communicator> comms = local(2);
        Communicator c0 = comms.get(0);
        Communicator c1 = comms.get(1);
        for (int round = 0; round < 3; round++) {
            CollectiveFuture mine = c0.allReduce(Buffer.of(ints(2, 1)), Buffer.of(arena.allocate(8)), 2, INT32, SUM);
            assertThat(mine.isDone()).as("rank 0's all-reduce before rank 1 issued it").isFalse();
            CompletableFuture<Void> synchronize = CompletableFuture.runAsync(c0::synchronize,
                    CommAssertions.daemonPool());
            Thread.sleep(50);   // long enough for a synchronize that waited for the wrong operation to return
            assertThat(synchronize.isDone()).as("synchronize() before rank 1 issued, round %d", round).isFalse();
            c1.allReduce(Buffer.of(ints(2, 2)), Buffer.of(arena.allocate(8)), 2, INT32, SUM).await();
            synchronize.get(HANG.toSeconds(), TimeUnit.SECONDS);
            assertThat(mine.isDone()).isTrue();
        }
    }

    @Test
    void closeWaitsForIssuedOperations() {
        List<Communicator> comms = local(3);
        List<MemorySegment> results = new ArrayList<>();
        List<CollectiveFuture> fs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            for (Communicator c : comms) {
                MemorySegment out = arena.allocate(4L * 100_000);
                results.add(out);
                fs.add(c.allReduce(Buffer.of(ints(100_000, c.rank() + 1)), Buffer.of(out), 100_000, INT32, SUM));
            }
        }
        for (Communicator c : comms) {
            c.close();   // rank 0's close waits for its operations, which the others' queued ones complete
        }
        assertThat(fs).allMatch(CollectiveFuture::isDone);
        assertThat(fs).allMatch(f -> f.error().isEmpty());
        for (MemorySegment out : results) {
            assertThat(out.getAtIndex(ValueLayout.JAVA_INT, 99_999)).isEqualTo(6);
        }
        for (Communicator c : comms) {
            assertThrowsJccl(ErrorCode.INVALID_USAGE, c::barrier, "closed");
            assertThat(c.asyncError()).isEmpty();
        }
    }

    @Test
    void operationsRacingWithCloseEitherRunOrAreRefusedNeverLost() throws Exception {
        for (int round = 0; round < 30; round++) {
            Communicator c = local(1).get(0);
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<List<CollectiveFuture>> issuer = CompletableFuture.supplyAsync(() -> {
                List<CollectiveFuture> mine = new ArrayList<>();
                started.countDown();
                try {
                    while (true) {
                        mine.add(c.barrier());
                    }
                } catch (JcclException e) {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_USAGE);
                }
                return mine;
            }, CommAssertions.daemonPool());
            started.await();
            c.close();
            for (CollectiveFuture f : issuer.get(HANG.toSeconds(), TimeUnit.SECONDS)) {
                // Each one completes: run before the close, or failed as closed; none stays pending.
                if (!f.isDone()) {
                    try {
                        f.await(HANG);
                    } catch (JcclException e) {
                        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_USAGE);
                    }
                }
                assertThat(f.isDone()).as("round %d: an operation was lost", round).isTrue();
            }
        }
    }

    @Test
    void manyOperationsFromSeveralThreadsThroughASmallQueue() throws Exception {
        List<Communicator> comms = local(2, CommConfig.builder().maxPendingOps(4)
                .opTimeout(Duration.ofSeconds(30)).build());
        assertThat(comms.get(0).config().maxPendingOps()).isEqualTo(4);
        int threads = 4;
        int perThread = 25;
        List<CompletableFuture<List<MemorySegment>>> issuers = new ArrayList<>();
        List<CollectiveFuture> fs = Collections.synchronizedList(new ArrayList<>());
        for (Communicator c : comms) {
            for (int t = 0; t < threads; t++) {
                issuers.add(CompletableFuture.supplyAsync(() -> {
                    List<MemorySegment> outs = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        // Identical calls on every thread, so any interleaving matches across ranks.
                        MemorySegment out = arena.allocate(4L * 300);
                        outs.add(out);
                        fs.add(c.allReduce(Buffer.of(ints(300, c.rank() + 1)), Buffer.of(out), 300, INT32, SUM));
                    }
                    return outs;
                }, CommAssertions.daemonPool()));
            }
        }
        List<MemorySegment> outs = new ArrayList<>();
        for (CompletableFuture<List<MemorySegment>> f : issuers) {
            outs.addAll(f.get(HANG.toSeconds(), TimeUnit.SECONDS));
        }
        assertThat(fs).hasSize(2 * threads * perThread);
        awaitAll(fs);
        for (MemorySegment out : outs) {
            assertThat(out.getAtIndex(ValueLayout.JAVA_INT, 0)).isEqualTo(3);
            assertThat(out.getAtIndex(ValueLayout.JAVA_INT, 299)).isEqualTo(3);
        }
    }

    @Test
    void aFullQueueRefusesOperationsFromTheCommunicatorsOwnThread() throws Exception {
        List<Communicator> comms = local(2, CommConfig.builder().maxPendingOps(4)
                .opTimeout(Duration.ofSeconds(30)).build());
        Communicator c0 = comms.get(0);
        CollectiveFuture first = c0.barrier();
        List<CollectiveFuture> fromCallback = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<JcclException> refused = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        first.toCompletableFuture().thenRun(() -> {
            try {
                for (int i = 0; i < 10; i++) {
                    fromCallback.add(c0.barrier());
                }
            } catch (JcclException e) {
                refused.set(e);
            } finally {
                ran.countDown();
            }
        });
        CommAssertions.awaitSuccess(comms.get(1).barrier());
        assertThat(ran.await(HANG.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(refused.get()).isNotNull();
        CommAssertions.assertCodeAndMessage(refused.get(), ErrorCode.INVALID_USAGE, "queue is full (4)",
                "own thread");
        assertThat(fromCallback).hasSize(4);
        List<CollectiveFuture> peer = new ArrayList<>();
        for (int i = 0; i < fromCallback.size(); i++) {
            peer.add(comms.get(1).barrier());
        }
        awaitAll(fromCallback);
        awaitAll(peer);
        CommAssertions.assertAllReduceWorks(comms, 3);
    }

    @Test
    void futuresReportTheirStateAndCannotBeCancelled() {
        List<Communicator> comms = local(2);
        CollectiveFuture f = comms.get(0).barrier();
        assertThat(f.isDone()).isFalse();
        assertThat(f.cancel(true)).isFalse();
        assertThat(f.isCancelled()).isFalse();
        assertThat(f.await(Duration.ofMillis(1))).isFalse();
        assertThat(f.error()).isEmpty();
        CompletableFuture<Void> cf = f.toCompletableFuture();
        cf.complete(null);   // has no effect on the operation
        assertThat(f.isDone()).isFalse();
        CommAssertions.awaitSuccess(comms.get(1).barrier());
        CommAssertions.awaitSuccess(f);
        assertThat(f.error()).isEmpty();
        assertThat(f.toCompletableFuture()).as("asked for after completion").isCompletedWithValue(null);
        // A failed one: get() wraps, await() throws the JcclException itself.
        comms.get(0).allReduce(Buffer.of(ints(4, 1)), Buffer.of(arena.allocate(16)), 4, INT32, SUM);
        CollectiveFuture bad = comms.get(1).allReduce(Buffer.of(ints(4, 1)), Buffer.of(arena.allocate(16)), 4, FLOAT32,
                SUM);
        JcclException e = awaitFailure(bad, ErrorCode.INVALID_USAGE, "type");
        assertThat(bad.error()).isPresent();
        assertThat(bad.toCompletableFuture()).as("asked for after the failure").isCompletedExceptionally();
        assertThat(bad.toCompletableFuture().handle((v, t) -> t).join()).cause().isInstanceOf(JcclException.class)
                .hasMessage(e.getMessage());
        try {
            bad.get();
        } catch (ExecutionException ee) {
            assertThat(ee.getCause()).isInstanceOf(JcclException.class);
        } catch (InterruptedException ie) {
            throw new AssertionError(ie);
        }
        assertThat(e.getStackTrace()).isNotEmpty();
    }
}
