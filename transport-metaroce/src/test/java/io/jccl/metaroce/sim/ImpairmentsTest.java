package io.jccl.metaroce.sim;

import io.jccl.metaroce.impair.Impairments;


import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each impairment at its configured rate: fixed seeds, bounds on counts (never on time) wide enough for any seed
 * (about 5 standard deviations).
 */
class ImpairmentsTest {
    private static final int N = 20_000;

    /** Infinitely fast links (no queues): sent at t, a packet reaches its route at t + 100, arrives at t + 600. */
    static FabricConfig instant(Impairments i) {
        LinkConfig fast = new LinkConfig(0, 100, LinkConfig.UNLIMITED, LinkConfig.NO_ECN);
        return new FabricConfig(fast, fast.withDelayNs(200), fast.withDelayNs(300), 8, 2048, 0, i);
    }

    static PacketEngine run(Impairments i, int packets, long seed) {
        PacketEngine a = new PacketEngine(1).plan(0, 2, 0, 200, packets, 100);
        PacketEngine b = new PacketEngine(2);
        Simulator sim = LinkAndFabricTest.pair(instant(i), a, b);
        sim.run(null, Long.MAX_VALUE, Long.MAX_VALUE);
        lastFabric = sim.fabric();
        return b;
    }

    static Fabric lastFabric;

    @Test
    void randomLossAtItsRate() {
        PacketEngine b = run(Impairments.NONE.withLossRate(0.1), N, 1);
        long dropped = lastFabric.count(FabricCounter.DROPPED_RANDOM_LOSS);
        assertThat(dropped).isBetween(1_700L, 2_300L).isEqualTo(N - b.arrivals());
        assertThat(meanRun(missing(b, N))).isLessThan(1.5); // independent losses: short runs
    }

    @Test
    void gilbertElliottLossComesInBursts() {
        Impairments ge = Impairments.NONE.withBurstLoss(0.01, 0.1, 1.0);
        assertThat(ge.burstLossRate()).isCloseTo(0.0909, org.assertj.core.data.Offset.offset(0.0001));
        int n = 50_000;
        PacketEngine b = run(ge, n, 1);
        long dropped = lastFabric.count(FabricCounter.DROPPED_BURST_LOSS);
        assertThat(dropped).isEqualTo(n - b.arrivals()).isBetween(3_500L, 5_700L);
        // Mean burst length 1 / p(bad->good) = 10 packets.
        assertThat(meanRun(missing(b, n))).isBetween(7.0, 13.0);
    }

    @Test
    void duplicatesArriveTwice() {
        PacketEngine b = run(Impairments.NONE.withDuplicateRate(0.05), N, 1);
        long dups = lastFabric.count(FabricCounter.DUPLICATED);
        assertThat(dups).isBetween(850L, 1_150L);
        assertThat(b.arrivals()).isEqualTo(N + (int) dups);
        int[] seen = new int[N];
        for (int i = 0; i < b.arrivals(); i++) {
            seen[b.arrival(i).seq()]++;
        }
        assertThat(Arrays.stream(seen).filter(c -> c == 2).count()).isEqualTo(dups);
        assertThat(Arrays.stream(seen).filter(c -> c == 0).count()).isZero();
    }

    @Test
    void corruptionFlipsABitTheCrcCatches() {
        PacketEngine b = run(Impairments.NONE.withCorruptRate(0.05), N, 1);
        long corrupted = lastFabric.count(FabricCounter.CORRUPTED);
        assertThat(corrupted).isBetween(850L, 1_150L);
        int bad = 0;
        for (int i = 0; i < b.arrivals(); i++) {
            bad += b.arrival(i).corrupt() ? 1 : 0;
        }
        assertThat(b.arrivals()).isEqualTo(N);
        assertThat(bad).isEqualTo((int) corrupted);
    }

    @Test
    void reorderedPacketsArriveAfterAtLeastTenLaterOnes() {
        PacketEngine b = run(Impairments.NONE.withReorder(0.02, 10, 1_000_000_000L), N, 1);
        long reordered = lastFabric.count(FabricCounter.REORDERED);
        assertThat(reordered).isBetween(300L, 500L);
        assertThat(b.arrivals()).isEqualTo(N);
        int[] overtakers = overtakers(b);
        int held = 0;
        for (int i = 0; i < b.arrivals(); i++) {
            int s = b.arrival(i).seq();
            if (overtakers[i] > 0) {
                held++;
                if (s < N - 10) {
                    assertThat(overtakers[i]).as("packet %d", s).isGreaterThanOrEqualTo(10);
                }
            }
        }
        assertThat((long) held).isBetween(reordered - 10, reordered);
    }

    @Test
    void heldPacketsAreReleasedWhenTheRouteGoesQuiet() {
        PacketEngine b = run(Impairments.NONE.withReorder(1.0, 10, 50_000), 5, 1);
        assertThat(b.arrivals()).isEqualTo(5);
        for (int i = 0; i < 5; i++) {
            assertThat(b.arrival(i).ns() - b.arrival(i).sentNs()).isGreaterThanOrEqualTo(50_000);
        }
        assertThat(lastFabric.packetsInFlight()).isZero();
    }

    @Test
    void jitterAddsUpToItsBound() {
        PacketEngine b = run(Impairments.NONE.withJitterNs(1000), N, 1);
        double sum = 0;
        for (int i = 0; i < b.arrivals(); i++) {
            long extra = b.arrival(i).ns() - b.arrival(i).sentNs() - 600;
            assertThat(extra).isBetween(0L, 1000L);
            sum += extra;
        }
        assertThat(sum / b.arrivals()).isBetween(460.0, 540.0);
    }

    @Test
    void impairmentsArePerRoute() {
        PacketEngine a = new PacketEngine(1).plan(0, 2, 0, 200, 2000, 100).plan(200_000, 2, 1, 200, 2000, 100);
        PacketEngine b = new PacketEngine(2);
        Simulator sim = LinkAndFabricTest.pair(instant(Impairments.NONE), a, b);
        sim.fabric().impair(1, 2, 0, Impairments.NONE.withLossRate(0.5));
        sim.run(null, Long.MAX_VALUE, Long.MAX_VALUE);
        int path0 = 0;
        int path1 = 0;
        for (int i = 0; i < b.arrivals(); i++) {
            if (b.arrival(i).path() == 0) {
                path0++;
            } else {
                path1++;
            }
        }
        assertThat(path1).isEqualTo(2000);
        assertThat(path0).isBetween(850, 1150);
    }

    @Test
    void sameSeedSameFateOtherSeedOtherFate() {
        Impairments mix = Impairments.NONE.withLossRate(0.05).withDuplicateRate(0.02).withReorder(0.02, 10, 100_000)
                .withJitterNs(300).withCorruptRate(0.01);
        long[] h = new long[3];
        long[] seeds = {5, 5, 6};
        for (int k = 0; k < 3; k++) {
            PacketEngine a = new PacketEngine(1).plan(0, 2, 0, 200, 3000, 100);
            PacketEngine b = new PacketEngine(2);
            Simulator sim = new Simulator(instant(mix), seeds[k]);
            sim.addNode(1, a);
            sim.addNode(2, b);
            sim.wake(1);
            sim.run(null, Long.MAX_VALUE, Long.MAX_VALUE);
            h[k] = sim.traceHash() ^ Arrays.hashCode(b.seqs());
        }
        assertThat(h[0]).isEqualTo(h[1]).isNotEqualTo(h[2]);
    }

    /** Sequence numbers never delivered, in order. */
    private static int[] missing(PacketEngine b, int n) {
        boolean[] got = new boolean[n];
        for (int i = 0; i < b.arrivals(); i++) {
            got[b.arrival(i).seq()] = true;
        }
        return java.util.stream.IntStream.range(0, n).filter(s -> !got[s]).toArray();
    }

    /** Mean length of runs of consecutive numbers. */
    private static double meanRun(int[] sorted) {
        if (sorted.length == 0) {
            return 0;
        }
        int runs = 1;
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] != sorted[i - 1] + 1) {
                runs++;
            }
        }
        return (double) sorted.length / runs;
    }

    /** For each arrival, how many packets with a higher sequence number arrived before it (a Fenwick tree). */
    private static int[] overtakers(PacketEngine b) {
        int n = 0;
        for (int i = 0; i < b.arrivals(); i++) {
            n = Math.max(n, b.arrival(i).seq() + 1);
        }
        int[] tree = new int[n + 1];
        int[] out = new int[b.arrivals()];
        for (int i = 0; i < b.arrivals(); i++) {
            int s = b.arrival(i).seq();
            int atMost = 0;
            for (int j = s + 1; j > 0; j -= j & -j) {
                atMost += tree[j];
            }
            out[i] = i - atMost;
            for (int j = s + 1; j <= n; j += j & -j) {
                tree[j]++;
            }
        }
        return out;
    }
}
