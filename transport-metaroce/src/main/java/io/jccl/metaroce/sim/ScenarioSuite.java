package io.jccl.metaroce.sim;

import io.jccl.metaroce.impair.Impairments;

import java.util.List;
import java.util.Objects;

/**
 * The standard checked scenarios every protocol must pass, for any {@link VerbsFactory}: the go-back-N baseline runs
 * them in the tests today, and {@link Protocols#metaRoCE()} runs the same ones once the MetaRoCE endpoint exists.
 * Each entry is a {@link TransferScenario}; {@code entry.scenario().run()} throws {@link ScenarioFailure} naming the
 * seed.
 */
public final class ScenarioSuite {
    private ScenarioSuite() {
    }

    /**
     * One scenario of the suite.
     *
     * @param name        short name
     * @param description what it exercises
     * @param scenario    the scenario
     */
    public record Entry(String name, String description, TransferScenario scenario) {
        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * @param protocol the endpoints under test
     * @param paths    paths per connection
     * @param seed     the seed (each entry derives its own from it)
     * @return the suite
     */
    public static List<Entry> standard(VerbsFactory protocol, int paths, long seed) {
        Objects.requireNonNull(protocol, "protocol");
        long s = seed * 1000;
        return List.of(
                new Entry("lossless", "random WRITEs and SENDs on 3 streams, 3 nodes, no impairment",
                        base(protocol, paths, s + 1).nodes(3).randomWork(30, 64_000, 3).build()),
                new Entry("loss-1pct", "1% random loss on every route",
                        base(protocol, paths, s + 2).impairments(Impairments.NONE.withLossRate(0.01))
                                .write(0, 1, 1 << 20).randomWork(20, 40_000, 3).build()),
                new Entry("loss-10pct", "10% random loss on every route",
                        base(protocol, paths, s + 3).impairments(Impairments.NONE.withLossRate(0.10))
                                .write(0, 1, 256 << 10).randomWork(10, 20_000, 2).build()),
                new Entry("bursty-loss", "Gilbert-Elliott bursts (about 2% loss in bursts of 5)",
                        base(protocol, paths, s + 4).impairments(Impairments.NONE.withBurstLoss(0.005, 0.2, 0.9))
                                .write(0, 1, 1 << 20).randomWork(20, 40_000, 3).build()),
                new Entry("corrupt-duplicate-reorder", "1% corrupted, 1% duplicated, 2% reordered past 10 later "
                        + "packets, 500 ns jitter",
                        base(protocol, paths, s + 5).impairments(Impairments.NONE.withCorruptRate(0.01)
                                        .withDuplicateRate(0.01).withReorder(0.02, 10, 200_000).withJitterNs(500))
                                .nodes(3).write(0, 1, 1 << 20).randomWork(30, 40_000, 3).build()),
                new Entry("late-receives", "SENDs whose RECVs are posted 100-400 us late (receiver not ready)",
                        base(protocol, paths, s + 6).send(0, 1, 1, 30_000, 0, 100_000).send(0, 1, 1, 5_000, 0, 0)
                                .send(0, 1, 2, 70_000, 0, 400_000).send(1, 0, 1, 1, 0, 250_000)
                                .write(0, 1, 100_000).build()),
                new Entry("black-hole", "path 0 black-holed both ways for the first 3 ms",
                        base(protocol, paths, s + 7).setup(sim -> {
                            sim.fabric().blackHolePath(1, 2, 0, 0, 3_000_000);
                            sim.fabric().blackHolePath(2, 1, 0, 0, 3_000_000);
                        }).write(0, 1, 4 << 20).send(0, 1, 0, 100_000).build()),
                new Entry("all-paths-down", "every route between the two nodes down from 100 us to 600 us",
                        base(protocol, paths, s + 8).setup(sim -> sim.fabric().allPathsDown(1, 2, 100_000, 600_000))
                                .write(0, 1, 2 << 20).send(1, 0, 3, 50_000).build()),
                new Entry("incast", "4 senders WRITE and SEND into one receiver at once",
                        base(protocol, paths, s + 9).nodes(5).write(1, 0, 1 << 20).write(2, 0, 1 << 20)
                                .write(3, 0, 1 << 20).write(4, 0, 1 << 20).send(1, 0, 0, 20_000)
                                .send(2, 0, 0, 20_000).build()),
                new Entry("mixed", "5 nodes, 40 random items, light loss and reordering",
                        base(protocol, paths, s + 10).nodes(5).impairments(Impairments.NONE.withLossRate(0.002)
                                .withReorder(0.005, 10, 100_000)).randomWork(40, 50_000, 4).build()));
    }

    private static TransferScenario.Builder base(VerbsFactory protocol, int paths, long seed) {
        return TransferScenario.builder(seed).protocol(protocol).paths(paths).timeLimitNs(20_000_000_000L);
    }
}
