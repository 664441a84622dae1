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

    /** What is known of the sender in one slot; made when the slot is first used, then reused. */
    private static final class Sender {
        /** Payload bytes delivered this interval. */
        long bytes;
        /** Its rate (bytes per second), measured per interval and smoothed. */
        double rate;
        /** The share granted to it. */
        double hint;
        /** Intervals in a row with nothing delivered. */
        int idle;
        boolean active;
        /** Active but not measured over an interval yet. */
        boolean fresh;
    }

    /** Slots {@code 0} to {@code slots - 1}. */
    private Sender[] senders = new Sender[8];
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

    /** @return the sender in {@code slot}, made (with every slot before it) when the slot is new */
    private Sender sender(int slot) {
        if (slot >= slots) {
            if (slot >= senders.length) {
                int n = Math.max(slot + 1, senders.length * 2);
                senders = Arrays.copyOf(senders, n);
                scratch = new double[n];
                order = new int[n];
            }
            for (int i = slots; i <= slot; i++) {
                senders[i] = new Sender();
            }
            slots = slot + 1;
        }
        return senders[slot];
    }

    /**
     * A sender delivered payload bytes.
     *
     * @param ecnMarked the packet carried an ECN congestion mark
     */
    public void onBytes(int slot, long payloadBytes, boolean ecnMarked, long nowNs) {
        Sender s = sender(slot);
        packets++;
        if (ecnMarked) {
            markedPackets++;
        }
        if (!s.active) {
            s.active = true;
            s.fresh = true;
            s.idle = 0;
            s.rate = 0;
            recompute();   // a newcomer gets its share at once
        }
        s.bytes += payloadBytes;
    }

    /** Forgets a sender (its connection closed). */
    public void remove(int slot) {
        if (slot < slots) {
            Sender s = senders[slot];
            s.active = false;
            s.bytes = 0;
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
            Sender s = senders[i];
            if (!s.active) {
                continue;
            }
            double measured = s.bytes * 1e9 / dt;
            s.rate = s.fresh ? measured : 0.5 * s.rate + 0.5 * measured;
            s.fresh = false;
            if (s.bytes == 0 && ++s.idle >= IDLE_INTERVALS) {
                s.active = false;
            } else if (s.bytes > 0) {
                s.idle = 0;
            }
            s.bytes = 0;
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
            Sender s = senders[i];
            if (s.active) {
                order[n] = i;
                // A newcomer's demand is unknown: treat it as unlimited.
                scratch[n] = s.fresh || s.rate == 0 ? Double.MAX_VALUE : s.rate * GROWTH;
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
            senders[order[k]].hint = share;
            remaining -= share;
        }
        // When every sender wants less than it could have, hand out the rest too: a demand measured low (a sender
        // that was recovering from a timeout, say) must not become a ceiling it can only climb out of by 25% an
        // interval.
        if (n > 0 && remaining > 0) {
            for (int k = 0; k < n; k++) {
                senders[order[k]].hint += remaining / n;
            }
        }
    }

    /** @return the share (bytes per second) granted to a sender; the whole capacity for an unknown one */
    public double hint(int slot) {
        return slot < slots && senders[slot].active ? senders[slot].hint : capacityBytesPerSecond;
    }

    /** @return how many senders are active */
    public int activeSenders() {
        int n = 0;
        for (int i = 0; i < slots; i++) {
            n += senders[i].active ? 1 : 0;
        }
        return n;
    }
}
