package io.jccl.tune;

import io.jccl.Algorithm;
import io.jccl.plan.OpKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The cost model's decisions for the transports as measured (docs/tuning.md). */
class TunerTest {
    private static final double LOCAL_HOP = Tuner.hopSeconds(1e-6, true);
    private static final double TCP_HOP = Tuner.hopSeconds(30e-6, false);

    private static Tuner local(int n) {
        return new Tuner(n, LOCAL_HOP, 4e9, 8e9, 256 << 10, Algorithm.AUTO, 0);
    }

    private static Tuner tcp(int n) {
        return new Tuner(n, TCP_HOP, 1.25e9, 8e9, 1 << 20, Algorithm.AUTO, 0);
    }

    @Test
    void twoRanksExchangeOnceForSmallMessagesAndRingForLarge() {
        // One exchange instead of the ring's two steps in series.
        for (Tuner t : new Tuner[] {local(2), tcp(2)}) {
            assertThat(t.choose(OpKind.ALL_REDUCE, 8).algorithm()).isEqualTo(Algorithm.RECURSIVE_DOUBLING);
            assertThat(t.choose(OpKind.ALL_REDUCE, 16 << 20).algorithm()).isEqualTo(Algorithm.RING);
        }
    }

    /**
     * At 2 ranks both algorithms move the whole message each way, but the ring reduces half of it per rank where
     * recursive doubling reduces all of it: over shared memory the ring wins from about 1 MiB (measured: 47 against
     * 70 µs in place, 2026-12-02, docs/tuning.md), over TCP, whose hops cost more, above it.
     */
    @Test
    void twoRanksTakeTheRingOnceTheReductionOutweighsAHop() {
        Tuner shm = new Tuner(2, Tuner.hopSeconds(1e-6, false), 8e9, 8e9, 1 << 20, Algorithm.AUTO, 0);
        assertThat(shm.choose(OpKind.ALL_REDUCE, 64 << 10).algorithm()).isEqualTo(Algorithm.RECURSIVE_DOUBLING);
        assertThat(shm.choose(OpKind.ALL_REDUCE, 1 << 20).algorithm()).isEqualTo(Algorithm.RING);
        assertThat(shm.choose(OpKind.ALL_REDUCE, 8 << 20).algorithm()).isEqualTo(Algorithm.RING);
        Tuner tcp = new Tuner(2, Tuner.hopSeconds(30e-6, false), 1.25e9, 8e9, 1 << 20, Algorithm.AUTO, 0);
        assertThat(tcp.choose(OpKind.ALL_REDUCE, 1 << 20).algorithm()).isEqualTo(Algorithm.RECURSIVE_DOUBLING);
        assertThat(tcp.choose(OpKind.ALL_REDUCE, 8 << 20).algorithm()).isEqualTo(Algorithm.RING);
    }

    /**
     * With single copy up to 1 MiB, an out-of-place all-reduce at 2 ranks up to that size reads the peer's input
     * where it lies by recursive doubling (measured far apart: 110 against 205 µs at 1 MiB, docs/performance.md);
     * in place, above the limit, at other rank counts (4 ranks on 2 cores measured slower), for other operations or
     * without single copy nothing changes, and a forced algorithm still wins.
     */
    @Test
    void singleCopyAllReducesAtTwoRanksReadThePeersInputByRecursiveDoubling() {
        Tuner shm = new Tuner(2, Tuner.hopSeconds(1e-6, false), 8e9, 8e9, 1 << 20, Algorithm.AUTO, 0, 1 << 20);
        assertThat(shm.singleCopyMaxBytes()).isEqualTo(1 << 20);
        assertThat(shm.algorithm(OpKind.ALL_REDUCE, 1 << 20, false)).isEqualTo(Algorithm.RECURSIVE_DOUBLING);
        assertThat(shm.singleCopy(OpKind.ALL_REDUCE, 1 << 20, false)).isTrue();
        assertThat(shm.algorithm(OpKind.ALL_REDUCE, 1 << 20, true)).isEqualTo(Algorithm.RING);
        assertThat(shm.singleCopy(OpKind.ALL_REDUCE, 1 << 20, true)).isFalse();
        assertThat(shm.algorithm(OpKind.ALL_REDUCE, (1 << 20) + 4, false)).isEqualTo(Algorithm.RING);
        assertThat(shm.singleCopy(OpKind.ALL_REDUCE, (1 << 20) + 4, false)).isFalse();
        assertThat(shm.algorithm(OpKind.ALL_REDUCE, 1 << 20)).as("placement unknown: the model").isEqualTo(
                Algorithm.RING);
        assertThat(shm.singleCopy(OpKind.ALL_GATHER, 1 << 20, false)).isFalse();
        assertThat(shm.algorithm(OpKind.BROADCAST, 1 << 20, false)).isEqualTo(Algorithm.RING);

        Tuner four = new Tuner(4, Tuner.hopSeconds(1e-6, false), 8e9, 8e9, 1 << 20, Algorithm.AUTO, 0, 1 << 20);
        assertThat(four.algorithm(OpKind.ALL_REDUCE, 1 << 20, false)).isEqualTo(Algorithm.RING);
        assertThat(four.singleCopy(OpKind.ALL_REDUCE, 1 << 20, false)).as("measured slower at 4 ranks").isFalse();

        Tuner none = new Tuner(2, Tuner.hopSeconds(1e-6, false), 8e9, 8e9, 1 << 20, Algorithm.AUTO, 0, 0);
        assertThat(none.algorithm(OpKind.ALL_REDUCE, 1 << 20, false)).isEqualTo(Algorithm.RING);
        assertThat(none.singleCopy(OpKind.ALL_REDUCE, 8, false)).isFalse();

        Tuner forced = new Tuner(2, Tuner.hopSeconds(1e-6, false), 8e9, 8e9, 1 << 20, Algorithm.RING, 0, 1 << 20);
        assertThat(forced.algorithm(OpKind.ALL_REDUCE, 1 << 20, false)).isEqualTo(Algorithm.RING);
        assertThat(forced.singleCopy(OpKind.ALL_REDUCE, 1 << 20, false)).isTrue();
    }

    @Test
    void recursiveDoublingForSmallMessagesRingForLargeOnFourRanks() {
        for (Tuner t : new Tuner[] {local(4), tcp(4)}) {
            assertThat(t.choose(OpKind.ALL_REDUCE, 64).algorithm()).isEqualTo(Algorithm.RECURSIVE_DOUBLING);
            assertThat(t.choose(OpKind.ALL_REDUCE, 4096).algorithm()).isEqualTo(Algorithm.RECURSIVE_DOUBLING);
            assertThat(t.choose(OpKind.ALL_REDUCE, 16 << 20).algorithm()).isEqualTo(Algorithm.RING);
        }
        assertThat(local(4).choose(OpKind.ALL_REDUCE, 1 << 20).algorithm()).isEqualTo(Algorithm.RING);
    }

    @Test
    void treeWinsMidSizesOnManyNetworkedRanks() {
        assertThat(tcp(64).choose(OpKind.ALL_REDUCE, 1 << 20).algorithm()).isEqualTo(Algorithm.TREE);
        assertThat(tcp(64).choose(OpKind.ALL_REDUCE, 64).algorithm()).isEqualTo(Algorithm.RECURSIVE_DOUBLING);
    }

    @Test
    void theConfigurationOverridesTheModel() {
        Tuner forced = new Tuner(4, LOCAL_HOP, 4e9, 8e9, 256 << 10, Algorithm.TREE, 65536);
        Tuner.Choice c = forced.choose(OpKind.ALL_REDUCE, 64);
        assertThat(c.algorithm()).isEqualTo(Algorithm.TREE);
        assertThat(c.chunkBytes()).isEqualTo(65536);
    }

    @Test
    void chunksStayWithinBoundsAndOtherCollectivesUseTheRing() {
        Tuner t = local(8);
        for (long bytes : new long[] {0, 1, 1000, 1 << 20, 1L << 34}) {
            Tuner.Choice c = t.choose(OpKind.ALL_GATHER, bytes);
            assertThat(c.algorithm()).isEqualTo(Algorithm.RING);
            assertThat(c.chunkBytes()).isBetween(Tuner.MIN_CHUNK_BYTES, 256L << 10);
        }
        assertThat(local(1).choose(OpKind.ALL_REDUCE, 1 << 20).algorithm()).isEqualTo(Algorithm.RING);
    }

    @Test
    void predictionsGrowWithSize() {
        Tuner t = tcp(8);
        for (Algorithm a : new Algorithm[] {Algorithm.RING, Algorithm.TREE, Algorithm.RECURSIVE_DOUBLING}) {
            assertThat(t.predictAllReduceSeconds(a, 1 << 24)).isGreaterThan(t.predictAllReduceSeconds(a, 1 << 10));
        }
    }
}
