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
}
