package io.jccl.api;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.core.TestHooks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.jccl.DataType.FLOAT32;
import static io.jccl.ReduceOp.SUM;
import static io.jccl.api.CommAssertions.assertAllReduceWorks;
import static io.jccl.api.CommAssertions.assertThrowsJccl;
import static io.jccl.api.CommAssertions.awaitFailure;
import static io.jccl.api.CommAssertions.onEveryRank;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Peer liveness and {@link Communicator#shrink}, with ranks in one JVM. A rank is made silent through a test hook
 * that stops its heartbeats, as a hung process's would stop; a rank whose thread is merely busy (here: blocked in a
 * completion callback) keeps sending them and is not declared dead. Real-process deaths (SIGKILL) are in the
 * launcher's multi-process tests. The operation timeout is a minute, so a failure that arrives here
 * came from liveness, not from a timeout.
 */
@Tag("integration")
class LivenessAndShrinkTest {
    private static final Duration PEER_TIMEOUT = Duration.ofMillis(600);

    private final List<Communicator> all = new ArrayList<>();
    private final Arena arena = Arena.ofShared();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void tearDown() {
        release.countDown();
        CommAssertions.abortAll(all);
        all.forEach(Communicator::close);
        arena.close();
    }

    private List<Communicator> local(int n, String transport) {
        CommConfig.Builder b = CommConfig.builder().opTimeout(Duration.ofMinutes(1)).peerTimeout(PEER_TIMEOUT);
        if (transport != null) {
            b.option(CommConfig.NET, transport);
        }
        List<Communicator> comms = Communicator.local(n, b.build());
        all.addAll(comms);
        return comms;
    }

    private MemorySegment buf() {
        return arena.allocate(4096);
    }

    /** Rank {@code victim} goes silent, as a hung process would (a dead one is in the multi-process tests). */
    private static void silence(List<Communicator> comms, int victim) {
        TestHooks.silence(comms.get(victim));
    }

    @Test
    void aSilentRankIsDeclaredDeadAndTheOthersShrinkWithoutIt() throws Exception {
        for (String transport : new String[] {null, "tcp"}) {
            List<Communicator> comms = local(3, transport);
            silence(comms, 2);
            CollectiveFuture f0 = comms.get(0).allReduce(Buffer.of(buf()), Buffer.of(buf()), 16, FLOAT32, SUM);
            CollectiveFuture f1 = comms.get(1).allReduce(Buffer.of(buf()), Buffer.of(buf()), 16, FLOAT32, SUM);
            for (CollectiveFuture f : List.of(f0, f1)) {
                JcclException e = awaitFailure(f);
                assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.REMOTE_ERROR);
                assertThat(e.detail()).as(transport + ": " + e.getMessage()).contains("rank 2 (pid ");
            }
            assertThat(comms.get(0).asyncError()).isPresent();
            assertThat(comms.get(1).asyncError()).isPresent();

            List<Communicator> shrunk = onEveryRank(2, r -> comms.get(r).shrink(2));
            all.addAll(shrunk);
            assertThat(shrunk.get(0).rank()).isZero();
            assertThat(shrunk.get(1).rank()).isEqualTo(1);
            assertThat(shrunk.get(1).size()).isEqualTo(2);
            assertAllReduceWorks(shrunk, 1000);
        }
    }

    @Test
    void anIdleRankLearnsOfASilentPeerThroughAsyncError() throws Exception {
        List<Communicator> comms = local(2, null);
        silence(comms, 1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (comms.get(0).asyncError().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(comms.get(0).asyncError()).hasValueSatisfying(e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.REMOTE_ERROR);
            assertThat(e.detail()).contains("heard nothing from rank 1 (pid ").contains("JCCL_PEER_TIMEOUT_MS=600");
        });
    }

    @Test
    void aRankWhoseThreadIsBusyLongerThanThePeerTimeoutIsNotTakenForDead() throws Exception {
        List<Communicator> comms = local(2, null);
        CountDownLatch blocked = new CountDownLatch(1);
        comms.get(1).barrier().toCompletableFuture().thenRun(() -> {
            blocked.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        CommAssertions.awaitSuccess(comms.get(0).barrier());
        assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(3 * PEER_TIMEOUT.toMillis());
        assertThat(comms.get(0).asyncError()).isEmpty();
        release.countDown();
        assertAllReduceWorks(comms, 100);
    }

    @Test
    void aRankThatClosesIsNotTakenForDead() throws Exception {
        for (String transport : new String[] {null, "tcp"}) {
            List<Communicator> comms = local(2, transport);
            assertAllReduceWorks(comms, 10);
            comms.get(1).close();
            Thread.sleep(3 * PEER_TIMEOUT.toMillis());
            assertThat(comms.get(0).asyncError()).as(transport).isEmpty();
        }
    }

    @Test
    void aHealthyCommunicatorShrinksToAnyRemainingRanksInOrder() {
        List<Communicator> comms = local(4, null);
        List<Communicator> shrunk = onEveryRank(2, i -> comms.get(i == 0 ? 0 : 2).shrink(3, 1));
        all.addAll(shrunk);
        assertThat(shrunk.get(0).rank()).isZero();
        assertThat(shrunk.get(1).rank()).isEqualTo(1);
        assertAllReduceWorks(shrunk, 4096);
        assertAllReduceWorks(comms, 10);   // the parent is left as it was
    }

    @Test
    void shrinkChecksItsArgumentsAndIsAllowedOnce() {
        List<Communicator> comms = local(3, null);
        Communicator c = comms.get(0);
        assertThrowsJccl(ErrorCode.INVALID_ARGUMENT, () -> c.shrink(0), "this rank");
        assertThrowsJccl(ErrorCode.INVALID_ARGUMENT, () -> c.shrink(1, 1), "twice");
        assertThrowsJccl(ErrorCode.INVALID_ARGUMENT, () -> c.shrink(3), "excludedRanks[0]");
        assertThrowsJccl(ErrorCode.INVALID_ARGUMENT, () -> c.shrink(-1), "excludedRanks[0]");
        assertThrowsJccl(ErrorCode.INVALID_ARGUMENT, () -> c.shrink((int[]) null), "null");

        List<Communicator> shrunk = onEveryRank(2, r -> comms.get(r).shrink(2));
        all.addAll(shrunk);
        assertThrowsJccl(ErrorCode.INVALID_USAGE, () -> c.shrink(2), "shrunk already");
        Communicator again = onEveryRank(1, r -> shrunk.get(0).shrink(1)).get(0);
        all.add(again);
        assertThat(again.size()).isEqualTo(1);
        assertAllReduceWorks(List.of(again), 10);

        comms.get(2).close();
        assertThrowsJccl(ErrorCode.INVALID_USAGE, () -> comms.get(2).shrink(0), "closed");
    }

    @Test
    void abortedCommunicatorsCanStillBeShrunkAndAbortReleasesPendingWorkBeforeItReturns() {
        List<Communicator> comms = local(3, null);
        CollectiveFuture pending = comms.get(0).allReduce(Buffer.of(buf()), Buffer.of(buf()), 16, FLOAT32, SUM);
        comms.get(0).abort();
        assertThat(pending.isDone()).as("pending operation completed when abort() returned").isTrue();
        awaitFailure(pending, ErrorCode.ABORTED);
        comms.get(1).abort();
        List<Communicator> shrunk = onEveryRank(2, r -> comms.get(r).shrink(2));
        all.addAll(shrunk);
        assertAllReduceWorks(shrunk, 100);
    }
}
