package io.jccl.metaroce.sim;

import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Counters;
import io.jccl.metaroce.protocol.DropReason;

import java.util.Map;

/**
 * What a {@link TransferScenario} run measured (all checks passed).
 *
 * @param seed                   the seed
 * @param simulatedNs            virtual time when the last work item completed
 * @param payloadBytes           payload bytes transferred (WRITEs and SENDs)
 * @param goodputBytesPerSecond  payload bytes per simulated second
 * @param retransmits            retransmitted packets over all endpoints (SACK, RTO and rerouted)
 * @param events                 simulator events processed (the drain after completion included)
 * @param traceHash              hash of the whole event sequence: equal runs have equal hashes
 * @param runWallNs              wall-clock time of the simulation loop (the drain included, the harness's data checks
 *                               left out), by the scenario's wall clock (0 without one)
 * @param fabricCounters         the fabric's counters
 * @param completionNs           per work item (in the order they were added), when its last completion came
 * @param endpointSummaries      per node, its counters as text (non-zero ones)
 * @param endpointCounters       per node, its counters (final: the run is over)
 */
public record ScenarioResult(long seed, long simulatedNs, long payloadBytes, double goodputBytesPerSecond,
                             long retransmits, long events, long traceHash, long runWallNs,
                             Map<FabricCounter, Long> fabricCounters, long[] completionNs,
                             String[] endpointSummaries, Counters[] endpointCounters) {
    /** @return simulator events per wall-clock second, or 0 when no wall clock was given */
    public double eventsPerSecond() {
        return runWallNs <= 0 ? 0 : events * 1e9 / runWallNs;
    }

    /** @return a fabric counter */
    public long fabric(FabricCounter c) {
        return fabricCounters.getOrDefault(c, 0L);
    }

    /** @return counter {@code c} of node index {@code node} */
    public long endpoint(int node, Counter c) {
        return endpointCounters[node].get(c);
    }

    /** @return datagrams node index {@code node} dropped for {@code reason} */
    public long endpointDrops(int node, DropReason reason) {
        return endpointCounters[node].drops(reason);
    }

    /** @return one line: time, goodput, retransmissions, events */
    public String summary() {
        return String.format(java.util.Locale.ROOT,
                "seed=%d: %d payload bytes in %.3f us simulated (%.3f GB/s), %d retransmits, %d events, "
                        + "fabric drops %d, ECN marks %d", seed, payloadBytes, simulatedNs / 1e3,
                goodputBytesPerSecond / 1e9, retransmits, events,
                fabric(FabricCounter.DROPPED_QUEUE_FULL) + fabric(FabricCounter.DROPPED_RANDOM_LOSS)
                        + fabric(FabricCounter.DROPPED_BURST_LOSS) + fabric(FabricCounter.DROPPED_BLACK_HOLE)
                        + fabric(FabricCounter.DROPPED_ALL_PATHS_DOWN), fabric(FabricCounter.ECN_MARKED));
    }
}
