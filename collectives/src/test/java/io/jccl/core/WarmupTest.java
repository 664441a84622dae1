package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The warm-up at creation: the ranks agree on one number of rounds, and the data path is right afterwards. */
@Tag("integration")
@Timeout(120)
class WarmupTest {
    private static final long MS = 1_000_000;
    /** One thread per rank (the common pool may have one thread on two cores: the ranks would wait on each other). */
    private static final java.util.concurrent.Executor RANKS = r -> Thread.ofPlatform().daemon().start(r);

    private final List<Communicator> opened = new ArrayList<>();

    /** @return {@code comms}, aborted after the test */
    private List<Communicator> open(List<Communicator> comms) {
        opened.addAll(comms);
        return comms;
    }

    @AfterEach
    void abortAll() {
        opened.forEach(Communicator::abort);
    }

    /** A clock that moves {@code stepMs} each time it is read: the rounds a rank wants follow from its wish alone. */
    private static LongSupplier steppingClock(long stepMs) {
        AtomicLong now = new AtomicLong();
        return () -> now.getAndAdd(stepMs * MS);
    }

    private static List<Warmup.Outcome> warmBoth(List<Communicator> comms, long[] wantNs, long[] spentNs) {
        return warmBoth(comms, wantNs, spentNs, 1, () -> -1);
    }

    private static List<Warmup.Outcome> warmBoth(List<Communicator> comms, long[] wantNs, long[] spentNs,
                                                 long clockStepMs, LongSupplier compileMillis) {
        List<CompletableFuture<Warmup.Outcome>> runs = new ArrayList<>();
        for (int r = 0; r < comms.size(); r++) {
            int rank = r;
            runs.add(CompletableFuture.supplyAsync(() -> Warmup.run(comms.get(rank), wantNs[rank],
                    new AtomicLong(spentNs[rank]), steppingClock(clockStepMs), compileMillis), RANKS));
        }
        return runs.stream().map(CompletableFuture::join).toList();
    }

    @Test
    void theRanksRunAsManyRoundsAsTheRankThatWantsMost() {
        List<Communicator> comms = open(Communicator.local(2));
        // Rank 0 reads its clock at 0 (start), then 1 and 2 before rounds (wanted: under 3 ms), 3 (not).
        List<Warmup.Outcome> outcomes = warmBoth(comms, new long[] {3 * MS, 0}, new long[] {0, 0});
        assertThat(outcomes).extracting(Warmup.Outcome::rounds).containsExactly(2, 2);
        assertExactAllReduce(comms);
    }

    @Test
    void aQuietJitEndsTheWarmupBeforeTheTimeAsked() {
        List<Communicator> comms = open(Communicator.local(2));
        // 10 ms per clock read: the first window closes at the tenth look (100 ms), with no compilation in it.
        List<Warmup.Outcome> quiet = warmBoth(comms, new long[] {3_600_000 * MS, 0}, new long[] {0, 0}, 10,
                () -> 7);
        assertThat(quiet).extracting(Warmup.Outcome::rounds).containsExactly(9, 9);
        // A JIT that compiles 100 ms per look is never quiet: the time asked (300 ms) ends the rounds.
        AtomicLong compiled = new AtomicLong();
        List<Warmup.Outcome> busy = warmBoth(comms, new long[] {300 * MS, 0}, new long[] {0, 0}, 10,
                () -> compiled.addAndGet(100));
        assertThat(busy).extracting(Warmup.Outcome::rounds).containsExactly(29, 29);
        assertExactAllReduce(comms);
    }

    @Test
    void aJvmThatHasWarmedEnoughRunsNoRound() {
        List<Communicator> comms = open(Communicator.local(2));
        List<Warmup.Outcome> outcomes = warmBoth(comms, new long[] {5 * MS, 5 * MS}, new long[] {5 * MS, 9 * MS});
        assertThat(outcomes).extracting(Warmup.Outcome::rounds).containsExactly(0, 0);
        assertExactAllReduce(comms);
    }

    @Test
    void aRankAbortedDuringTheWarmupFailsItOnEveryRank() throws InterruptedException {
        List<Communicator> comms = open(Communicator.local(2));
        // Rank 0 wants rounds for an hour: only the abort ends them.
        CompletableFuture<Warmup.Outcome> wanting = CompletableFuture.supplyAsync(() -> Warmup.run(comms.get(0),
                3_600_000 * MS, new AtomicLong(), System::nanoTime, () -> -1), RANKS);
        CompletableFuture<Warmup.Outcome> following = CompletableFuture.supplyAsync(() -> Warmup.run(comms.get(1),
                0, new AtomicLong(), System::nanoTime, () -> -1), RANKS);
        Thread.sleep(200);
        comms.get(1).abort();
        assertThatThrownBy(wanting::join).hasCauseInstanceOf(JcclException.class);
        assertThatThrownBy(following::join).hasCauseInstanceOf(JcclException.class);
    }

    @Test
    void aCommunicatorBetweenTransportsIsWarmWhenItIsReturned() {
        long before = Warmup.jvmSpentNs();
        List<Communicator> local = open(Communicator.local(2));
        local.forEach(Communicator::close);
        assertThat(Warmup.jvmSpentNs()).as("ranks of one JVM over the in-JVM transport do not warm")
                .isEqualTo(before);
        List<Communicator> tcp = open(Communicator.local(2, CommConfig.builder().transport("tcp")
                .warmup(Duration.ofMillis(200)).build()));
        // Rounds run until the JVM has warmed 200 ms in all, or this warm-up saw a quiet window (100 ms) of JIT.
        assertThat(Warmup.jvmSpentNs()).as("this JVM has warmed")
                .isGreaterThanOrEqualTo(Math.min(200 * MS, Warmup.QUIET_WINDOW_NS));
        assertExactAllReduce(tcp);
    }

    /** Rank r contributes r + 1 in every element: after the warm-up's operations the next result is exact. */
    private static void assertExactAllReduce(List<Communicator> comms) {
        int n = comms.size();
        int count = 1000;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] bufs = new MemorySegment[n];
            List<CompletableFuture<Void>> runs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                bufs[r] = arena.allocate((long) count * Float.BYTES, 64);
                for (int i = 0; i < count; i++) {
                    bufs[r].setAtIndex(ValueLayout.JAVA_FLOAT, i, r + 1);
                }
                int rank = r;
                runs.add(CompletableFuture.runAsync(() -> comms.get(rank)
                        .allReduce(Buffer.of(bufs[rank]), Buffer.of(bufs[rank]), count, DataType.FLOAT32,
                                ReduceOp.SUM).await(), RANKS));
            }
            runs.forEach(CompletableFuture::join);
            float want = n * (n + 1) / 2f;
            for (MemorySegment b : bufs) {
                for (int i = 0; i < count; i++) {
                    assertThat(b.getAtIndex(ValueLayout.JAVA_FLOAT, i)).isEqualTo(want);
                }
            }
        }
    }
}
