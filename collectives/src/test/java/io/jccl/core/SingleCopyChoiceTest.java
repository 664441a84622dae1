package io.jccl.core;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.net.BoxPeer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongBinaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Both ranks of a pair choose alike, call by call, from the times each measured: the probe alternates the two ways,
 * the verdicts add up across ranks, the choice follows the host when it changes, and a pair whose calls differ fails
 * instead of choosing apart. Times are injected (no clock), so every run is the same.
 */
class SingleCopyChoiceTest {
    private static final long MIB = 1 << 20;

    private Arena arena;
    private SingleCopyChoice[] ranks;

    @BeforeEach
    void pair() {
        arena = Arena.ofConfined();
        MemorySegment[] lines = {arena.allocate(BoxPeer.BOX_BYTES, 64), arena.allocate(BoxPeer.BOX_BYTES, 64)};
        ranks = new SingleCopyChoice[2];
        for (int r = 0; r < 2; r++) {
            MemorySegment[] peers = lines.clone();
            peers[r] = null;
            ranks[r] = new SingleCopyChoice(r, lines[r], peers);
        }
    }

    @AfterEach
    void free() {
        arena.close();
    }

    /**
     * Runs {@code calls} calls of {@code bytes} on both ranks in step; a timed call takes
     * {@code timeNs.applyAsLong(rank, single ? 1 : 0)}.
     *
     * @return the way of each call (the same on both ranks, asserted)
     */
    private List<Boolean> run(int calls, long bytes, LongBinaryOperator timeNs) {
        List<Boolean> ways = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            boolean first = ranks[0].choose(bytes);
            boolean second = ranks[1].choose(bytes);
            assertThat(second).as("rank 1's way of call %d", i).isEqualTo(first);
            for (int r = 0; r < 2; r++) {
                if (ranks[r].timing()) {
                    ranks[r].record(timeNs.applyAsLong(r, first ? 1 : 0));
                }
            }
            ways.add(first);
        }
        return ways;
    }

    @Test
    void theFirstProbeAlternatesStartingWithSingleCopyThenTheFasterWayHolds() {
        List<Boolean> ways = run(64, MIB, (rank, single) -> single == 1 ? 200_000 : 100_000);
        for (int i = 0; i < SingleCopyChoice.PROBE_CALLS; i++) {
            assertThat(ways.get(i)).as("probe call %d", i).isEqualTo(i % 2 == 0);
        }
        assertThat(ways.get(32)).as("the call that publishes the verdicts keeps the tuner's way").isTrue();
        assertThat(ways.subList(33, 64)).as("after the verdicts: the pipelined copies, faster here").containsOnly(false);
    }

    @Test
    void theVerdictsOfBothRanksAddUp() {
        // Rank 0 finds single copy faster by 10 µs, rank 1 finds it slower by 50 µs: together, slower.
        List<Boolean> ways = run(40, MIB, (rank, single) -> rank == 0
                ? (single == 1 ? 90_000 : 100_000) : (single == 1 ? 150_000 : 100_000));
        assertThat(ways.subList(33, 40)).containsOnly(false);
    }

    @Test
    void laterProbesFollowTheHostWhenItChanges() {
        long[] singleNs = {300_000};
        LongBinaryOperator host = (rank, single) -> single == 1 ? singleNs[0] : 200_000;
        List<Boolean> ways = run(64, MIB, host);
        assertThat(ways.get(63)).isFalse();
        singleNs[0] = 110_000;   // the cores moved apart: single copy wins now
        ways = run(128, MIB, host);   // calls 64 to 191: the second probe starts at call 64, the third at 192
        assertThat(ways.subList(33, 128)).as("after the second probe's verdicts").containsOnly(true);
        assertThat(ways.subList(0, 32)).as("the second probe alternates too")
                .isEqualTo(run32Alternating());
    }

    @Test
    void theProbesComeLessOftenUpToThePeriod() {
        List<Integer> probeStarts = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(7);
        // Single copy always slower: outside probes every call is pipelined, a probe's first call is single copy.
        List<Boolean> ways = run(20_000, 4096, (rank, single) -> (single == 1 ? 50_000 : 20_000)
                + random.nextInt(1000));
        for (int i = 0; i < ways.size(); i++) {
            if (ways.get(i) && (probeStarts.isEmpty() || i - probeStarts.getLast() > SingleCopyChoice.PROBE_CALLS)) {
                probeStarts.add(i);
            }
        }
        assertThat(probeStarts.subList(0, 8)).containsExactly(0, 64, 192, 448, 960, 1984, 4032, 6080);
        long singleCalls = ways.stream().filter(w -> w).count();
        assertThat(singleCalls).as("single-copy calls: one half of each probe, the first verdict's call")
                .isEqualTo((long) probeStarts.size() * SingleCopyChoice.PROBE_CALLS / 2 + 1);
    }

    @Test
    void sizeClassesChooseApart() {
        for (int i = 0; i < 40; i++) {
            for (long bytes : new long[] {MIB, MIB / 2}) {
                boolean first = ranks[0].choose(bytes);
                assertThat(ranks[1].choose(bytes)).isEqualTo(first);
                for (SingleCopyChoice rank : ranks) {
                    if (rank.timing()) {   // 1 MiB: single copy faster; 512 KiB: slower
                        rank.record(first == (bytes == MIB) ? 50_000 : 90_000);
                    }
                }
            }
        }
        for (SingleCopyChoice rank : ranks) {
            assertThat(rank.current(MIB)).isTrue();
            assertThat(rank.current(MIB + 1000)).as("the same class").isTrue();
            assertThat(rank.current(MIB / 2)).isFalse();
        }
    }

    @Test
    void ranksWhoseCallsDifferFailInsteadOfChoosingApart() {
        // Rank 1 makes one call of another size in the first probe: its count of 1 MiB calls lags behind.
        for (int i = 0; i < SingleCopyChoice.PROBE_CALLS + 1; i++) {
            ranks[0].choose(MIB);
            ranks[1].choose(i == 5 ? MIB / 2 : MIB);
            ranks[0].record(1000);
            ranks[1].record(1000);
        }
        assertThatThrownBy(() -> ranks[0].choose(MIB))
                .isInstanceOfSatisfying(JcclException.class, e -> assertThat(e.code())
                        .isEqualTo(ErrorCode.INVALID_USAGE))
                .hasMessageContaining("operations do not match across ranks: rank 1 has timed 0 rounds")
                .hasMessageContaining("rank 0 has timed 1");
    }

    @Test
    void sizeClassesArePowersOfTwoUpToTheLast() {
        assertThat(SingleCopyChoice.sizeClass(0)).isZero();
        assertThat(SingleCopyChoice.sizeClass(1)).isZero();
        assertThat(SingleCopyChoice.sizeClass(4095)).isEqualTo(11);
        assertThat(SingleCopyChoice.sizeClass(4096)).isEqualTo(12);
        assertThat(SingleCopyChoice.sizeClass(MIB)).isEqualTo(20);
        assertThat(SingleCopyChoice.sizeClass(1L << 40)).isEqualTo(SingleCopyChoice.CLASSES - 1);
    }

    @Test
    void choosingAndTimingAllocateNothing() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        int calls = 200_000;
        long[] ns = {0};
        for (int round = 0; round < 2; round++) {   // the first warms up
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < calls; i++) {
                long bytes = (i & 3) == 0 ? MIB : 4096 << (i & 7);
                ranks[0].choose(bytes);
                ranks[1].choose(bytes);
                ns[0] += 7;
                ranks[0].record(ns[0] % 1000);
                ranks[1].record(ns[0] % 1300);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            if (round == 1) {
                assertThat(allocated).as("bytes allocated by %d calls on two ranks", calls).isLessThan(calls);
            }
        }
    }

    private static List<Boolean> run32Alternating() {
        List<Boolean> ways = new ArrayList<>();
        for (int i = 0; i < SingleCopyChoice.PROBE_CALLS; i++) {
            ways.add(i % 2 == 0);
        }
        return ways;
    }
}
