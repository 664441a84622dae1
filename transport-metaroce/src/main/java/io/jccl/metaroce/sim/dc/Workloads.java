package io.jccl.metaroce.sim.dc;

import java.util.SplittableRandom;

/** Traffic patterns as {@link Flows}. */
public final class Workloads {
    private Workloads() {
    }

    /**
     * Every host sends {@code bytes} to one other host and receives from one: a random permutation without fixed
     * points (from {@code seed}), all starting at time 0.
     */
    public static Flows permutation(int hosts, long bytes, long seed) {
        if (hosts < 2) {
            throw new IllegalArgumentException("a permutation needs at least 2 hosts, not " + hosts);
        }
        int[] to = new int[hosts];
        for (int i = 0; i < hosts; i++) {
            to[i] = i;
        }
        // Sattolo's algorithm: a uniformly random single cycle, so no host sends to itself.
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = hosts - 1; i > 0; i--) {
            int j = random.nextInt(i);
            int t = to[i];
            to[i] = to[j];
            to[j] = t;
        }
        Flows flows = new Flows(hosts);
        for (int h = 0; h < hosts; h++) {
            flows.add(h, to[h], bytes, 0);
        }
        return flows;
    }

    /** Hosts {@code 1..senders} each send {@code bytes} to host 0, all starting at time 0. */
    public static Flows incast(int hosts, int senders, long bytes) {
        if (senders < 1 || senders >= hosts) {
            throw new IllegalArgumentException("an incast of " + senders + " senders needs 1 to " + (hosts - 1)
                    + " senders on " + hosts + " hosts");
        }
        Flows flows = new Flows(senders);
        for (int s = 1; s <= senders; s++) {
            flows.add(s, 0, bytes, 0);
        }
        return flows;
    }

    /** Every host sends {@code bytes} to every other host, all starting at time 0 ({@code hosts * (hosts - 1)} flows). */
    public static Flows allToAll(int hosts, long bytes) {
        if (hosts < 2 || (long) hosts * (hosts - 1) > 1 << 24) {
            throw new IllegalArgumentException("an all-to-all needs 2 to 4,096 hosts, not " + hosts);
        }
        Flows flows = new Flows(hosts * (hosts - 1));
        for (int src = 0; src < hosts; src++) {
            for (int dst = 0; dst < hosts; dst++) {
                if (src != dst) {
                    flows.add(src, dst, bytes, 0);
                }
            }
        }
        return flows;
    }

    /**
     * A ring all-reduce of {@code bytes} per host over all hosts, as its data moves: 2 (N - 1) steps (reduce-scatter,
     * then all-gather), in each of which every host sends one chunk of {@code bytes / N} (rounded up) to the next
     * host of the ring; a host's chunk of step s starts when it has received its predecessor's chunk of step s - 1.
     * Flow {@code s * N + h} is host h's chunk of step s. Reductions take no time.
     */
    public static Flows ringAllReduce(int hosts, long bytes) {
        if (hosts < 2 || 2L * (hosts - 1) * hosts > 1 << 24) {
            throw new IllegalArgumentException("a ring all-reduce needs 2 to 2,896 hosts, not " + hosts);
        }
        if (bytes < hosts) {
            throw new IllegalArgumentException("an all-reduce of " + bytes + " bytes over " + hosts
                    + " hosts leaves a host no bytes");
        }
        long chunk = (bytes + hosts - 1) / hosts;
        int steps = 2 * (hosts - 1);
        Flows flows = new Flows(steps * hosts);
        for (int h = 0; h < hosts; h++) {
            flows.add(h, (h + 1) % hosts, chunk, 0);
        }
        for (int s = 1; s < steps; s++) {
            for (int h = 0; h < hosts; h++) {
                int predecessorsLast = (s - 1) * hosts + (h - 1 + hosts) % hosts;
                flows.addAfter(h, (h + 1) % hosts, chunk, predecessorsLast);
            }
        }
        return flows;
    }
}
