package io.jccl.metaroce.simnet;

import io.jccl.check.WorkloadSpec;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What a whole-stack simulation runs: the ranks, the random workload, the faults and the time limits (virtual time).
 *
 * @param ranks       ranks, 2 to 256
 * @param ops         operations per seed, every rank runs them all in order
 * @param workload    the workload's sizes and kinds
 * @param faults      what to inject
 * @param opTimeoutNs the communicators' operation timeout ({@code JCCL_OP_TIMEOUT_MS}, virtual)
 * @param peerTimeoutNs the communicators' peer timeout ({@code JCCL_PEER_TIMEOUT_MS}, virtual)
 * @param paths       MetaRoCE paths per connection
 * @param spoilAtOp   tests of the judge: rank 0 spoils one element of the result of the first operation from this one
 *                    on that has an output on rank 0, before it is checked (-1: never)
 */
public record SimSettings(int ranks, int ops, WorkloadSpec workload, Set<Fault> faults, long opTimeoutNs,
                          long peerTimeoutNs, int paths, int spoilAtOp) {
    /** Default workload for the simulation: every kind, up to 64 KiB per rank (virtual bytes cost real CPU). */
    public static final long DEFAULT_MAX_BYTES_PER_RANK = 64 << 10;

    /** Checks every field, naming the one that is wrong. */
    public SimSettings {
        Objects.requireNonNull(workload, "workload");
        faults = Set.copyOf(Objects.requireNonNull(faults, "faults"));
        if (ranks < 2 || ranks > 256) {
            throw new IllegalArgumentException("ranks must be 2 to 256, got " + ranks);
        }
        if (ops < 1) {
            throw new IllegalArgumentException("ops must be at least 1, got " + ops);
        }
        if (opTimeoutNs <= 0 || peerTimeoutNs <= 0) {
            throw new IllegalArgumentException("timeouts must be positive, got op " + opTimeoutNs + " ns, peer "
                    + peerTimeoutNs + " ns");
        }
        if (paths < 1 || paths > 64) {
            throw new IllegalArgumentException("paths must be 1 to 64, got " + paths);
        }
    }

    /**
     * @param ranks  ranks
     * @param ops    operations per seed
     * @param faults what to inject
     * @return settings with the defaults: 64 KiB per rank, every kind, 20 s operation and 5 s peer timeouts, 4 paths
     */
    public static SimSettings of(int ranks, int ops, Set<Fault> faults) {
        return new SimSettings(ranks, ops, WorkloadSpec.defaults().withMaxBytesPerRank(DEFAULT_MAX_BYTES_PER_RANK),
                faults.isEmpty() ? EnumSet.noneOf(Fault.class) : EnumSet.copyOf(faults), 20_000_000_000L,
                5_000_000_000L, 4, -1);
    }

    /** @return these settings with another workload */
    public SimSettings withWorkload(WorkloadSpec spec) {
        return new SimSettings(ranks, ops, spec, faults, opTimeoutNs, peerTimeoutNs, paths, spoilAtOp);
    }

    /** @return these settings with rank 0 spoiling the result of operation {@code op} (tests of the judge) */
    public SimSettings withSpoiledResultAt(int op) {
        return new SimSettings(ranks, ops, workload, faults, opTimeoutNs, peerTimeoutNs, paths, op);
    }
}
