package io.jccl.check;

import io.jccl.plan.OpKind;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What a random {@link Workload} may contain.
 *
 * @param maxBytesPerRank the largest buffer any rank passes to one operation, in bytes (at least 1; for the
 *                        gathering, scattering and all-to-all collectives that is the whole gathered or exchanged
 *                        buffer, so their counts are smaller)
 * @param kinds           the collectives to draw from, a non-empty subset of {@link Workload#KINDS}
 */
public record WorkloadSpec(long maxBytesPerRank, Set<OpKind> kinds) {
    /** The default largest buffer: 1 MiB. */
    public static final long DEFAULT_MAX_BYTES_PER_RANK = 1L << 20;
    /** Larger buffers than this (1 GiB) are refused: each rank also computes every rank's expected output. */
    public static final long MAX_BYTES_PER_RANK_LIMIT = 1L << 30;

    /** Checks the spec; each failure names the field and value. */
    public WorkloadSpec {
        Objects.requireNonNull(kinds, "kinds");
        if (maxBytesPerRank < 1 || maxBytesPerRank > MAX_BYTES_PER_RANK_LIMIT) {
            throw new IllegalArgumentException("maxBytesPerRank must be between 1 and " + MAX_BYTES_PER_RANK_LIMIT
                    + ", got " + maxBytesPerRank);
        }
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("kinds must name at least one collective");
        }
        for (OpKind k : kinds) {
            if (!Workload.KINDS.contains(Objects.requireNonNull(k, "kinds element"))) {
                throw new IllegalArgumentException("kinds: " + k + " is not a workload operation; expected any of "
                        + Workload.KINDS);
            }
        }
        kinds = Collections.unmodifiableSet(EnumSet.copyOf(kinds));   // ordinal order, whatever the caller's set
    }

    /** @return 1 MiB per rank, every collective */
    public static WorkloadSpec defaults() {
        return new WorkloadSpec(DEFAULT_MAX_BYTES_PER_RANK, Workload.KINDS);
    }

    /** @return the same kinds with another largest buffer */
    public WorkloadSpec withMaxBytesPerRank(long bytes) {
        return new WorkloadSpec(bytes, kinds);
    }
}
