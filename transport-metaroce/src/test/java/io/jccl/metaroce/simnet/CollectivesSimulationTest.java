package io.jccl.metaroce.simnet;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The whole stack (collectives engine over metaroce over the simulated fabric) under random workloads and faults. */
class CollectivesSimulationTest {
    private static List<String> failures(SimSettings settings, long firstSeed, int seeds) {
        CollectivesSimulation sim = new CollectivesSimulation(settings);
        List<String> bad = new ArrayList<>();
        for (long seed = firstSeed; seed < firstSeed + seeds; seed++) {
            long t0 = System.nanoTime();
            SeedOutcome o = sim.run(seed);
            System.out.printf("seed %d: %d ops, %d wrong, %d hangs, %.1f ms virtual, %d events, %.0f ms real, crash %d@%d %s%n",
                    seed, o.completedOps(), o.wrong(), o.hangs(), o.virtualNs() / 1e6, o.events(),
                    (System.nanoTime() - t0) / 1e6, o.crashedRank(), o.crashedAtOp(), o.errors());
            if (o.failed()) {
                bad.add("seed " + seed + ": " + o.errors());
            }
        }
        return bad;
    }

    @Test
    void withoutFaultsEveryOperationIsExact() {
        assertThat(failures(SimSettings.of(4, 40, Set.of()), 1, 3)).isEmpty();
    }

    @Test
    void underLossDuplicationReorderingAndCorruption() {
        assertThat(failures(SimSettings.of(4, 40, EnumSet.of(Fault.LOSS, Fault.DUP, Fault.REORDER, Fault.CORRUPT)),
                1, 5)).isEmpty();
    }

    @Test
    void underBlackHolesAndFlaps() {
        assertThat(failures(SimSettings.of(4, 40, EnumSet.of(Fault.LOSS, Fault.BLACKHOLE, Fault.FLAP)), 1, 5))
                .isEmpty();
    }

    @Test
    void aCrashedRankMakesEverySurvivorFailClearly() {
        assertThat(failures(SimSettings.of(4, 40, EnumSet.of(Fault.CRASH)), 1, 5)).isEmpty();
    }
}
