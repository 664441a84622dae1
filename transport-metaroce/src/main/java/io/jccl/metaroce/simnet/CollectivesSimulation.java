package io.jccl.metaroce.simnet;

import io.jccl.JcclException;
import io.jccl.check.Workload;
import io.jccl.check.WorkloadOp;
import io.jccl.metaroce.sim.Fabric;
import io.jccl.metaroce.sim.FabricConfig;
import io.jccl.metaroce.impair.Impairments;
import io.jccl.metaroce.sim.RunResult;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The whole stack in deterministic simulation (the FoundationDB / TigerBeetle way): N ranks of the real collectives
 * engine (API, argument checks, plans, plan runner, executor, control plane) over the real {@code metaroce} transport
 * and MetaRoCE protocol core, over the simulated fabric, in one thread on virtual time. Each seed draws a random
 * workload ({@link Workload}: every collective, type, reduction, root and count, in place and out of place, checked
 * against the independent reference) and random faults ({@link Fault}); the same seed replays the run exactly.
 *
 * <p>A seed fails when a result is wrong, a rank hangs (its operation neither completes nor fails within the
 * operation and peer timeouts plus slack, or it cannot close), an operation fails where no crash explains it, or,
 * after a crash, a survivor fails unclearly or late.
 */
public final class CollectivesSimulation {
    /** The transports' {@code JCCL_CLOSE_LINGER_MS}, virtual. */
    static final long CLOSE_LINGER_NS = 5_000_000_000L;
    /** Failures to list per seed, at most. */
    private static final int MAX_ERRORS = 8;

    private final SimSettings settings;

    /** What the ranks of one run share: when the crash happened. */
    static final class Shared {
        long crashedAtNs = -1;
    }

    /** @param settings what to run */
    public CollectivesSimulation(SimSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /** @return the settings */
    public SimSettings settings() {
        return settings;
    }

    /**
     * Runs one seed.
     *
     * @param seed the seed of the workload, the faults, the fabric and the endpoints
     * @return how it went
     */
    public SeedOutcome run(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int n = settings.ranks();
        List<WorkloadOp> ops = Workload.generate(seed, n, settings.ops(), settings.workload());
        FabricConfig fabric = FabricConfig.datacenter().withRoutesPerPair(Math.max(4, settings.paths()))
                .withImpairments(impairments(random));
        SimulatedCluster cluster = new SimulatedCluster(fabric, seed);
        Map<String, String> options = Map.of("JCCL_METAROCE_PATHS", Integer.toString(settings.paths()),
                "JCCL_METAROCE_PAYLOAD_BYTES", "4096",
                "JCCL_CLOSE_LINGER_MS", Long.toString(CLOSE_LINGER_NS / 1_000_000));
        int crashedRank = settings.faults().contains(Fault.CRASH) ? random.nextInt(n) : -1;
        int crashAtOp = crashedRank >= 0 ? random.nextInt(settings.ops()) : -1;
        Shared shared = new Shared();
        List<SimRank> ranks = new ArrayList<>(n);
        try (Arena arena = Arena.ofShared()) {
            try {
                for (int r = 0; r < n; r++) {
                    ranks.add(new SimRank(r, n, cluster, cluster.addRank(n, options), settings, ops, seed,
                            r == crashedRank ? crashAtOp : -1, shared, arena));
                }
                cluster.connectAll(ranks);
                injectPathFaults(cluster.simulator().fabric(), random, n);
                cluster.wakeAll();
                RunResult result = cluster.run(() -> allFinished(ranks), Long.MAX_VALUE / 4);
                return judge(seed, ranks, crashedRank, crashAtOp, shared, result, cluster);
            } finally {
                for (SimRank r : ranks) {
                    r.release();
                }
            }
        }
    }

    private static boolean allFinished(List<SimRank> ranks) {
        for (SimRank r : ranks) {
            if (!r.finished()) {
                return false;
            }
        }
        return true;
    }

    private Impairments impairments(SplittableRandom random) {
        Impairments i = Impairments.NONE;
        if (settings.faults().contains(Fault.LOSS)) {
            i = i.withLossRate(0.001 + random.nextDouble() * 0.049);
        }
        if (settings.faults().contains(Fault.DUP)) {
            i = i.withDuplicateRate(random.nextDouble() * 0.02);
        }
        if (settings.faults().contains(Fault.REORDER)) {
            i = i.withReorder(random.nextDouble() * 0.1, 1 + random.nextInt(8), 20_000 + random.nextInt(200_000));
        }
        if (settings.faults().contains(Fault.CORRUPT)) {
            i = i.withCorruptRate(random.nextDouble() * 0.01);
        }
        return i;
    }

    /** Black holes and flaps on some paths of some pairs, never on every path of a pair at once. */
    private void injectPathFaults(Fabric fabric, SplittableRandom random, int n) {
        int paths = settings.paths();
        if (paths < 2) {
            return;   // with one path a black hole is a partition, not a path fault
        }
        if (settings.faults().contains(Fault.BLACKHOLE)) {
            int holes = 1 + random.nextInt(2 * n);
            for (int h = 0; h < holes; h++) {
                long[] pair = randomDirection(random, n);
                int firstPath = random.nextInt(paths);
                int count = 1 + random.nextInt(paths - 1);
                long fromNs = random.nextLong(50_000_000L);
                long untilNs = fromNs + 1_000_000L + random.nextLong(300_000_000L);
                for (int k = 0; k < count; k++) {
                    fabric.blackHolePath(pair[0], pair[1], (firstPath + k) % paths, fromNs, untilNs);
                }
            }
        }
        if (settings.faults().contains(Fault.FLAP)) {
            int flaps = 1 + random.nextInt(2 * n);
            for (int f = 0; f < flaps; f++) {
                long[] pair = randomDirection(random, n);
                int path = random.nextInt(paths);
                long periodNs = 2_000_000L + random.nextLong(20_000_000L);
                long downNs = 500_000L + random.nextLong(periodNs / 2);
                long startNs = random.nextLong(20_000_000L);
                int cycles = 2 + random.nextInt(20);
                for (int c = 0; c < cycles; c++) {
                    long from = startNs + c * periodNs;
                    fabric.blackHolePath(pair[0], pair[1], path, from, from + downNs);
                }
            }
        }
    }

    /** @return {source node, destination node} of one direction between two distinct random ranks */
    private static long[] randomDirection(SplittableRandom random, int n) {
        int a = random.nextInt(n);
        int b = (a + 1 + random.nextInt(n - 1)) % n;
        boolean fromInitiating = random.nextBoolean();
        // a's initiating endpoint talks to b's accepting one, and a's accepting endpoint to b's initiating one.
        return new long[] {SimulatedCluster.nodeOf(a, !fromInitiating), SimulatedCluster.nodeOf(b, fromInitiating)};
    }

    private SeedOutcome judge(long seed, List<SimRank> ranks, int crashedRank, int crashAtOp, Shared shared,
                              RunResult result, SimulatedCluster cluster) {
        List<String> errors = new ArrayList<>();
        long completed = 0;
        long wrong = 0;
        int hangs = 0;
        for (int r = 0; r < ranks.size(); r++) {
            SimRank rank = ranks.get(r);
            completed += rank.completedOps;
            wrong += rank.wrong;
            if (rank.problem != null) {
                add(errors, "wrong result: " + rank.problem);
            }
            if (rank.phase == SimRank.Phase.HUNG) {
                hangs++;
                add(errors, "hang: " + rank.hang);
            } else if (!rank.finished()) {
                hangs++;
                add(errors, "hang: rank " + r + " stuck in " + rank.phase + " when the simulation stopped ("
                        + result.reason() + ")");
            }
            JcclException e = rank.error;
            if (e == null || r == crashedRank) {
                continue;
            }
            if (shared.crashedAtNs < 0) {
                add(errors, "rank " + r + ": " + rank.errorOp + " failed with no crash to explain it: " + e.code()
                        + ": " + e.detail());
            } else if (!SimRank.clearAboutAPeer(e)) {
                add(errors, "rank " + r + ": after rank " + crashedRank + " crashed, " + rank.errorOp
                        + " failed with an unclear error: " + e.code() + ": " + e.detail());
            } else if (rank.errorAtNs - shared.crashedAtNs > settings.opTimeoutNs() + 1_000_000_000L) {
                add(errors, "rank " + r + ": failed " + (rank.errorAtNs - shared.crashedAtNs) / 1_000_000
                        + " ms after rank " + crashedRank + " crashed, later than the operation timeout ("
                        + settings.opTimeoutNs() / 1_000_000 + " ms)");
            }
        }
        return new SeedOutcome(seed, completed, wrong, hangs, errors, crashedRank, crashAtOp, result.nowNs(),
                cluster.simulator().events(), result.reason(), cluster.simulator().traceHash());
    }

    private static void add(List<String> errors, String line) {
        if (errors.size() < MAX_ERRORS) {
            errors.add(line);
        }
    }
}
