package io.jccl.api;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.core.TestHooks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static io.jccl.DataType.FLOAT32;
import static io.jccl.ReduceOp.SUM;
import static io.jccl.api.CommAssertions.HANG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Caller-driven progress: the thread that waits for an operation runs it (the plan, the transports) itself, and the
 * communicator's own thread progresses what nobody waits for.
 */
class CallerDrivenProgressTest {
    private final Arena arena = Arena.ofShared();
    private final List<Communicator> comms = new ArrayList<>();

    @AfterEach
    void close() {
        comms.forEach(Communicator::close);
        arena.close();
    }

    private MemorySegment ones(long count) {
        MemorySegment s = arena.allocate(count * 4);
        for (long i = 0; i < count; i++) {
            s.setAtIndex(ValueLayout.JAVA_FLOAT, i, 1f);
        }
        return s;
    }

    @Test
    void theWaitingThreadRunsItsOperationAndItsCallbacks() throws Exception {
        // A spin time far above the peer's delay: the waiter keeps driving until the operation completes.
        comms.addAll(Communicator.local(2, CommConfig.builder().spin(Duration.ofSeconds(1)).build()));
        MemorySegment a = ones(1024);
        MemorySegment b = ones(1024);
        CollectiveFuture first = comms.get(0).allReduce(Buffer.of(a), Buffer.of(a), 1024, FLOAT32, SUM);
        AtomicReference<String> callbackThread = new AtomicReference<>();
        first.toCompletableFuture().whenComplete((v, t) -> callbackThread.set(Thread.currentThread().getName()));
        Thread peer = Thread.ofPlatform().name("peer").start(() -> {
            try {
                Thread.sleep(100);   // rank 0 waits meanwhile
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            comms.get(1).allReduce(Buffer.of(b), Buffer.of(b), 1024, FLOAT32, SUM).await();
        });
        assertThat(first.await(HANG)).isTrue();
        peer.join(HANG.toMillis());
        assertThat(callbackThread.get()).as("the operation completed on the thread that waited for it")
                .isEqualTo(Thread.currentThread().getName());
        assertThat(a.getAtIndex(ValueLayout.JAVA_FLOAT, 1023)).isEqualTo(2f);
    }

    @Test
    void theCommunicatorsThreadRunsWhatNobodyWaitsFor() throws Exception {
        comms.addAll(Communicator.local(3));
        List<CollectiveFuture> futures = new ArrayList<>();
        MemorySegment[] bufs = new MemorySegment[3];
        for (int r = 0; r < 3; r++) {
            bufs[r] = ones(4096);
        }
        for (int i = 0; i < 20; i++) {
            for (int r = 0; r < 3; r++) {
                futures.add(comms.get(r).allReduce(Buffer.of(bufs[r]), Buffer.of(bufs[r]), 4096, FLOAT32, SUM));
            }
        }
        long until = System.nanoTime() + HANG.toNanos();
        while (!futures.stream().allMatch(CollectiveFuture::isDone) && System.nanoTime() < until) {
            Thread.sleep(1);   // nobody awaits: only the communicators' threads can complete them
        }
        assertThat(futures).allMatch(CollectiveFuture::isDone);
        assertThat(futures).allMatch(f -> f.error().isEmpty());
        assertThat(bufs[0].getAtIndex(ValueLayout.JAVA_FLOAT, 0)).isEqualTo((float) Math.pow(3, 20));
    }

    @Test
    void manyThreadsWaitingOnOneCommunicatorTakeTurnsDriving() throws Exception {
        comms.addAll(Communicator.local(2));
        int ops = 100;   // 2^100 still fits a float: the result checks every operation ran once
        MemorySegment[] bufs = {ones(64), ones(64)};
        List<CollectiveFuture> mine = new ArrayList<>();
        for (int i = 0; i < ops; i++) {
            mine.add(comms.get(0).allReduce(Buffer.of(bufs[0]), Buffer.of(bufs[0]), 64, FLOAT32, SUM));
        }
        // Four threads await rank 0's operations at once while rank 1's are issued and awaited here.
        List<Thread> waiters = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            int first = w;
            waiters.add(Thread.ofPlatform().start(() -> {
                for (int i = first; i < ops; i += 4) {
                    mine.get(i).await();
                }
            }));
        }
        for (int i = 0; i < ops; i++) {
            comms.get(1).allReduce(Buffer.of(bufs[1]), Buffer.of(bufs[1]), 64, FLOAT32, SUM).await();
        }
        for (Thread t : waiters) {
            t.join(HANG.toMillis());
            assertThat(t.isAlive()).isFalse();
        }
        assertThat(mine).allMatch(f -> f.isDone() && f.error().isEmpty());
        assertThat(bufs[0].getAtIndex(ValueLayout.JAVA_FLOAT, 0)).isEqualTo((float) Math.pow(2, ops));
    }

    /**
     * While callers wait for their operations right after issuing them, queuing one does not wake the communicator's
     * thread (it only found the caller driving); an operation then issued and left alone still completes, the thread
     * finding it within its watch interval, and from then on every queued operation wakes the thread again.
     */
    @Test
    void anOperationLeftAloneAfterAwaitedOnesStillCompletes() throws Exception {
        comms.addAll(Communicator.local(2));
        MemorySegment[] bufs = {ones(64), ones(64)};
        // An operation counts as waited for when its caller got to await() before it completed; on a loaded host the
        // communicator's thread may now and then finish one first, so issue until the pattern shows.
        int blocking = 0;
        while (blocking < 20 || (TestHooks.wakesOnOffer(comms.get(0)) && blocking < 10_000)) {
            CollectiveFuture peer = comms.get(1).allReduce(Buffer.of(bufs[1]), Buffer.of(bufs[1]), 64, FLOAT32, SUM);
            comms.get(0).allReduce(Buffer.of(bufs[0]), Buffer.of(bufs[0]), 64, FLOAT32, SUM).await();
            peer.await();
            blocking++;
        }
        assertThat(TestHooks.wakesOnOffer(comms.get(0))).as("the blocking pattern: offers do not wake").isFalse();

        List<CollectiveFuture> alone = List.of(comms.get(0).allReduce(Buffer.of(bufs[0]), Buffer.of(bufs[0]), 64,
                FLOAT32, SUM),
                comms.get(1).allReduce(Buffer.of(bufs[1]), Buffer.of(bufs[1]), 64, FLOAT32, SUM));
        long until = System.nanoTime() + HANG.toNanos();
        while (!alone.stream().allMatch(CollectiveFuture::isDone) && System.nanoTime() < until) {
            Thread.sleep(1);   // nobody awaits: only the communicators' threads can complete them
        }
        assertThat(alone).allMatch(f -> f.isDone() && f.error().isEmpty());
        assertThat(TestHooks.wakesOnOffer(comms.get(0))).as("an operation nobody waited for: offers wake again")
                .isTrue();
        assertThat(bufs[0].getAtIndex(ValueLayout.JAVA_FLOAT, 0)).isEqualTo((float) Math.pow(2, blocking + 1));
    }

    /** After a quiet spell the communicator's thread asks to be woken again, so a late operation starts at once. */
    @Test
    void aQuietCommunicatorIsWokenByTheNextOperation() throws Exception {
        comms.addAll(Communicator.local(2));
        MemorySegment[] bufs = {ones(64), ones(64)};
        for (int i = 0; i < 5; i++) {
            CollectiveFuture peer = comms.get(1).allReduce(Buffer.of(bufs[1]), Buffer.of(bufs[1]), 64, FLOAT32, SUM);
            comms.get(0).allReduce(Buffer.of(bufs[0]), Buffer.of(bufs[0]), 64, FLOAT32, SUM).await();
            peer.await();
        }
        long until = System.nanoTime() + HANG.toNanos();
        while (!TestHooks.wakesOnOffer(comms.get(0)) && System.nanoTime() < until) {
            Thread.sleep(1);
        }
        assertThat(TestHooks.wakesOnOffer(comms.get(0))).isTrue();
    }
}
