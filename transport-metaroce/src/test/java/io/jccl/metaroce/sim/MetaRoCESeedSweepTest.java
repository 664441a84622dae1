package io.jccl.metaroce.sim;

import io.jccl.metaroce.impair.Impairments;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * Many seeds of one rough mix: 3 nodes, random WRITEs and SENDs (some receives late) both ways, loss up to 30%,
 * duplicates, reordering, corruption and jitter together. Each seed is its own test (named by it) and replays
 * exactly; this is the sweep that found the receiver's cumulative-PSN, late-duplicate-WRITE and collapsed-share bugs.
 * And outages: every path down and one path black-holed, at times and for durations drawn from the seed, over light
 * loss. More seeds on demand: {@code -Djccl.sweep.mix=3000 -Djccl.sweep.outages=2000}.
 */
class MetaRoCESeedSweepTest {
    private static final double[] LOSS = {0.01, 0.1, 0.3};

    @TestFactory
    Stream<DynamicTest> roughMix() {
        return LongStream.rangeClosed(1, Long.getLong("jccl.sweep.mix", 300)).mapToObj(seed -> {
            double loss = LOSS[(int) (seed % LOSS.length)];
            return DynamicTest.dynamicTest("seed " + seed + " loss " + loss, () -> TransferScenario.builder(seed)
                    .protocol(Protocols.metaRoCE()).paths(1 + (int) (seed % 8)).nodes(3)
                    .impairments(Impairments.NONE.withLossRate(loss).withDuplicateRate(0.02).withCorruptRate(0.005)
                            .withReorder(0.02, 12, 100_000).withJitterNs(1_000))
                    .randomWork(24, 40_000 + seed * 700, 3).build().run());
        });
    }

    @TestFactory
    Stream<DynamicTest> outages() {
        return LongStream.rangeClosed(1, Long.getLong("jccl.sweep.outages", 150)).mapToObj(seed -> {
            java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
            long downFrom = r.nextLong(0, 400_000);
            long downFor = r.nextLong(50_000, 2_000_000);
            int hole = r.nextInt(8);
            long holeFrom = r.nextLong(0, 500_000);
            long holeFor = r.nextLong(50_000, 3_000_000);
            double loss = r.nextDouble() * 0.05;
            String name = String.format(java.util.Locale.ROOT, "seed %d: all paths down %d+%d us, path %d "
                    + "black-holed %d+%d us, loss %.3f", seed, downFrom / 1000, downFor / 1000, hole, holeFrom / 1000,
                    holeFor / 1000, loss);
            return DynamicTest.dynamicTest(name, () -> TransferScenario.builder(seed).protocol(Protocols.metaRoCE())
                    .paths(8).nodes(2).impairments(Impairments.NONE.withLossRate(loss))
                    .setup(sim -> {
                        sim.fabric().allPathsDown(1, 2, downFrom, downFrom + downFor);
                        sim.fabric().blackHolePath(1, 2, hole, holeFrom, holeFrom + holeFor);
                        sim.fabric().blackHolePath(2, 1, hole, holeFrom, holeFrom + holeFor);
                    })
                    .write(0, 1, 1 << 20).randomWork(12, 200_000, 2).build().run());
        });
    }
}
