package io.jccl.metaroce.simnet;

import io.jccl.metaroce.sim.FabricConfig;
import io.jccl.metaroce.impair.Impairments;
import io.jccl.metaroce.sim.RunResult;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The close race, deterministically: ranks that finish an exchange and close at once, over a lossy simulated fabric,
 * must not make a peer fail or hang. Before sends completed only once acknowledged and closes were graceful, a rank
 * could close while its last message (or its last acknowledgement) was still lost in the network.
 */
class CloseRaceSimTest {
    private static final long LIMIT_NS = 120_000_000_000L;

    /** What one seeded run ended with. */
    record Outcome(long seed, List<String> failures, boolean allDone, RunResult run) {
        String describe() {
            return "seed " + seed + ": " + run + (allDone ? "" : " (not every rank finished)") + " " + failures;
        }
    }

    static Outcome run(long seed, int ranks, int rounds, Impairments impairments) {
        FabricConfig fabric = FabricConfig.datacenter().withImpairments(impairments);
        SimulatedCluster cluster = new SimulatedCluster(fabric, seed);
        Map<String, String> options = Map.of("JCCL_METAROCE_PATHS", "4", "JCCL_METAROCE_PAYLOAD_BYTES", "4096",
                "JCCL_METAROCE_RTO_FLOOR_US", "200", "JCCL_METAROCE_MAX_INFLIGHT", "4", "JCCL_CLOSE_LINGER_MS", "5000");
        List<ExchangeRank> processes = new ArrayList<>();
        try (Arena arena = Arena.ofShared()) {
            for (int r = 0; r < ranks; r++) {
                processes.add(new ExchangeRank(r, ranks, rounds, cluster.addRank(ranks, options), arena));
            }
            cluster.connectAll(processes);
            cluster.wakeAll();
            RunResult result = cluster.run(() -> processes.stream().allMatch(ExchangeRank::finished), LIMIT_NS);
            List<String> failures = new ArrayList<>();
            for (ExchangeRank p : processes) {
                if (p.failure != null) {
                    failures.add(p.failure);
                } else if (!p.finished()) {
                    failures.add("rank " + processes.indexOf(p) + " stuck in " + p.phase);
                }
            }
            return new Outcome(seed, failures, processes.stream().allMatch(ExchangeRank::finished), result);
        }
    }

    private static Impairments lossy() {
        return Impairments.NONE.withLossRate(0.1).withDuplicateRate(0.02).withReorder(0.05, 4, 50_000);
    }

    @Test
    void ranksThatCloseRightAfterTheirLastExchangeLoseNothing() {
        List<String> bad = new ArrayList<>();
        for (long seed = 1; seed <= 60; seed++) {
            Outcome o = run(seed, 3, 6, lossy());
            if (!o.failures().isEmpty() || !o.allDone()) {
                bad.add(o.describe());
            }
        }
        assertThat(bad).isEmpty();
    }

    @Test
    void aRunReplaysExactlyFromItsSeed() {
        Outcome a = run(7, 3, 6, lossy());
        Outcome b = run(7, 3, 6, lossy());
        assertThat(a.run()).isEqualTo(b.run());
        assertThat(a.failures()).isEqualTo(b.failures());
    }
}
