package io.jccl.metaroce.protocol.cc;

import java.util.Arrays;

/**
 * The receiver's share-out of its inbound capacity among the senders that are sending to it, max-min fair by
 * water-filling: senders that use less than an equal share keep what they use (plus room to grow), the rest is
 * split evenly among the others. A sender seen for the first time is given an equal share at once.
 * Recomputed every interval from the bytes each sender delivered.
 *
 * <p>What is shared out is the capacity times a utilization that follows the ECN marks on the arriving packets,
 * on the aggregate: an interval with marks (a queue at the receiver's port) shrinks it by a quarter of the fraction
 * of packets marked, an interval without marks grows it back by 5% of the capacity, up to all of it (0.5 at least).
 * Without this, senders paced to shares that add up to exactly the port's rate never drain a queue left by a burst
 * (an incast's first round trip), and the minimum windows of many paths keep it above the marking threshold.
 */
public final class FairShare {
    private static final double GROWTH = 1.25;
    private static final int IDLE_INTERVALS = 4;
    private static final double MARK_CUT = 0.25;
    private static final double RECOVERY_PER_INTERVAL = 0.05;
    private static final double MIN_UTILIZATION = 0.5;

    private final double capacityBytesPerSecond;
    private final long intervalNs;
    private long[] bytes = new long[8];
    private double[] rate = new double[8];
    private double[] hint = new double[8];
    private int[] idle = new int[8];
    private boolean[] active = new boolean[8];
    private boolean[] fresh = new boolean[8];
    private int slots;
    private long lastUpdateNs = Long.MIN_VALUE;
    private long packets;
    private long markedPackets;
    private double utilization = 1;
    private double[] scratch = new double[8];
    private int[] order = new int[8];

    /**
     * @param capacityBytesPerSecond what this receiver can take in
     * @param intervalNs             how often shares are recomputed
     */
    public FairShare(double capacityBytesPerSecond, long intervalNs) {
        this.capacityBytesPerSecond = capacityBytesPerSecond;
        this.intervalNs = intervalNs;
    }

    private void ensure(int slot) {
        if (slot >= bytes.length) {
            int n = Math.max(slot + 1, bytes.length * 2);
            bytes = Arrays.copyOf(bytes, n);
            rate = Arrays.copyOf(rate, n);
            hint = Arrays.copyOf(hint, n);
            idle = Arrays.copyOf(idle, n);
            active = Arrays.copyOf(active, n);
            fresh = Arrays.copyOf(fresh, n);
            scratch = new double[n];
            order = new int[n];
        }
        slots = Math.max(slots, slot + 1);
    }

    /**
     * A sender delivered payload bytes.
     *
     * @param ecnMarked the packet carried an ECN congestion mark
     */
    public void onBytes(int slot, long payloadBytes, boolean ecnMarked, long nowNs) {
        ensure(slot);
        packets++;
        if (ecnMarked) {
            markedPackets++;
        }
        if (!active[slot]) {
            active[slot] = true;
            fresh[slot] = true;
            idle[slot] = 0;
            rate[slot] = 0;
            recompute();   // a newcomer gets its share at once
        }
        bytes[slot] += payloadBytes;
    }

    /** Forgets a sender (its connection closed). */
    public void remove(int slot) {
        if (slot < slots) {
            active[slot] = false;
            bytes[slot] = 0;
            recompute();
        }
    }

    /** Recomputes shares if an interval has passed. */
    public void update(long nowNs) {
        if (lastUpdateNs == Long.MIN_VALUE) {
            lastUpdateNs = nowNs;
            return;
        }
        long dt = nowNs - lastUpdateNs;
        if (dt < intervalNs) {
            return;
        }
        for (int i = 0; i < slots; i++) {
            if (!active[i]) {
                continue;
            }
            double measured = bytes[i] * 1e9 / dt;
            rate[i] = fresh[i] ? measured : 0.5 * rate[i] + 0.5 * measured;
            fresh[i] = false;
            if (bytes[i] == 0 && ++idle[i] >= IDLE_INTERVALS) {
                active[i] = false;
            } else if (bytes[i] > 0) {
                idle[i] = 0;
            }
            bytes[i] = 0;
        }
        lastUpdateNs = nowNs;
        followMarks();
        recompute();
    }

    private void followMarks() {
        double fraction = packets == 0 ? 0 : (double) markedPackets / packets;
        if (markedPackets > 0) {
            utilization = Math.max(MIN_UTILIZATION, utilization * (1 - MARK_CUT * fraction));
        } else {
            utilization = Math.min(1, utilization + RECOVERY_PER_INTERVAL);
        }
        packets = 0;
        markedPackets = 0;
    }

    /** @return the share of the capacity being handed out now (0.5-1), lowered while arriving packets are marked */
    public double utilization() {
        return utilization;
    }

    /** @return when the next recomputation is due */
    public long nextUpdateNs() {
        return lastUpdateNs == Long.MIN_VALUE ? Long.MAX_VALUE : lastUpdateNs + intervalNs;
    }

    private void recompute() {
        int n = 0;
        for (int i = 0; i < slots; i++) {
            if (active[i]) {
                order[n] = i;
                // A newcomer's demand is unknown: treat it as unlimited.
                scratch[n] = fresh[i] || rate[i] == 0 ? Double.MAX_VALUE : rate[i] * GROWTH;
                n++;
            }
        }
        // Water-filling in ascending order of demand.
        for (int a = 1; a < n; a++) {
            int o = order[a];
            double d = scratch[a];
            int b = a - 1;
            while (b >= 0 && scratch[b] > d) {
                scratch[b + 1] = scratch[b];
                order[b + 1] = order[b];
                b--;
            }
            scratch[b + 1] = d;
            order[b + 1] = o;
        }
        double remaining = capacityBytesPerSecond * utilization;
        for (int k = 0; k < n; k++) {
            double equal = remaining / (n - k);
            double share = Math.min(scratch[k], equal);
            hint[order[k]] = share;
            remaining -= share;
        }
        // When every sender wants less than it could have, hand out the rest too: a demand measured low (a sender
        // that was recovering from a timeout, say) must not become a ceiling it can only climb out of by 25% an
        // interval.
        if (n > 0 && remaining > 0) {
            for (int k = 0; k < n; k++) {
                hint[order[k]] += remaining / n;
            }
        }
    }

    /** @return the share (bytes per second) granted to a sender; the whole capacity for an unknown one */
    public double hint(int slot) {
        return slot < slots && active[slot] ? hint[slot] : capacityBytesPerSecond;
    }

    /** @return how many senders are active */
    public int activeSenders() {
        int n = 0;
        for (int i = 0; i < slots; i++) {
            n += active[i] ? 1 : 0;
        }
        return n;
    }
}
