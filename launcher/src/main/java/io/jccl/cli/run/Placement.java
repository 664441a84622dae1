package io.jccl.cli.run;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each rank runs: hosts are filled slot by slot in order (Open MPI's {@code --map-by slot}): the first
 * host's slots take ranks 0, 1, ..., then the next host's. With oversubscription allowed, ranks beyond the total
 * slots start another round over the hosts in the same way.
 */
final class Placement {
    /**
     * One rank's place.
     *
     * @param rank      the rank
     * @param host      its host
     * @param localRank its index among the ranks on that host
     * @param localSize the number of ranks on that host
     */
    record Slot(int rank, String host, int localRank, int localSize) {
    }

    private Placement() {
    }

    /**
     * @param hosts         hosts in order, each with its slots
     * @param np            the number of ranks, at least 1
     * @param oversubscribe whether more ranks than slots are allowed
     * @return one slot per rank, in rank order
     * @throws IllegalArgumentException when there are too few slots and oversubscription is off
     */
    static List<Slot> place(List<HostSlots> hosts, int np, boolean oversubscribe) {
        long total = hosts.stream().mapToLong(HostSlots::slots).sum();
        if (np > total && !oversubscribe) {
            throw new IllegalArgumentException("-np " + np + " needs more slots than the " + total + " given ("
                    + describe(hosts) + "); add hosts or slots, or allow it with --oversubscribe");
        }
        List<String> hostOf = new ArrayList<>(np);
        while (hostOf.size() < np) {
            for (HostSlots h : hosts) {
                for (int s = 0; s < h.slots() && hostOf.size() < np; s++) {
                    hostOf.add(h.host());
                }
            }
        }
        Map<String, Integer> perHost = new HashMap<>();
        for (String h : hostOf) {
            perHost.merge(h, 1, Integer::sum);
        }
        Map<String, Integer> next = new HashMap<>();
        List<Slot> out = new ArrayList<>(np);
        for (int r = 0; r < np; r++) {
            String h = hostOf.get(r);
            int local = next.merge(h, 1, Integer::sum) - 1;
            out.add(new Slot(r, h, local, perHost.get(h)));
        }
        return out;
    }

    private static String describe(List<HostSlots> hosts) {
        StringBuilder sb = new StringBuilder();
        for (HostSlots h : hosts) {
            sb.append(sb.isEmpty() ? "" : ", ").append(h.host()).append(':').append(h.slots());
        }
        return sb.toString();
    }
}
