package io.jccl.metaroce.simnet;

import io.jccl.metaroce.sim.StopReason;

import java.util.List;

/**
 * What one seed of a whole-stack simulation ended with.
 *
 * @param seed        the seed (replays the run exactly)
 * @param completedOps operations that completed on some rank, summed over ranks
 * @param wrong       wrong output elements, changed send-buffer elements and damaged guard bytes, over all ranks
 * @param hangs       ranks that neither finished nor failed within the time bounds (or when nothing was left to happen)
 * @param errors      what went wrong that should not have, one line each (unexpected failures, unclear or late
 *                    failures after a crash, hangs, wrong results); empty for a good run
 * @param crashedRank the rank that was crashed, or -1
 * @param crashedAtOp the operation it crashed at, or -1
 * @param virtualNs   virtual time the run took
 * @param events      simulator events processed
 * @param stop        why the simulator stopped
 * @param traceHash   the simulator's hash of every event: equal for equal runs
 */
public record SeedOutcome(long seed, long completedOps, long wrong, int hangs, List<String> errors, int crashedRank,
                          int crashedAtOp, long virtualNs, long events, StopReason stop, long traceHash) {
    /** Keeps an immutable copy of the errors. */
    public SeedOutcome {
        errors = List.copyOf(errors);
    }

    /** @return whether the seed failed: something went wrong that should not have */
    public boolean failed() {
        return !errors.isEmpty();
    }
}
