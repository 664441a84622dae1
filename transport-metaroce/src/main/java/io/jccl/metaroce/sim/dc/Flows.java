package io.jccl.metaroce.sim.dc;

import java.util.Arrays;

/**
 * The flows of a run: source, destination, bytes and start; their transports record progress and completion here.
 * Flow completion time (FCT): from the start to the arrival of the flow's last byte at its destination.
 */
public final class Flows {
    private final int[] src;
    private final int[] dst;
    private final long[] bytes;
    private final long[] startPs;
    private final long[] finishPs;
    private final long[] retransmissions;
    private int count;
    private int unfinished;

    /** @param capacity the most flows this holds */
    public Flows(int capacity) {
        src = new int[capacity];
        dst = new int[capacity];
        bytes = new long[capacity];
        startPs = new long[capacity];
        finishPs = new long[capacity];
        retransmissions = new long[capacity];
    }

    /** @return the new flow's id */
    public int add(int source, int destination, long sizeBytes, long atPs) {
        if (source == destination) {
            throw new IllegalArgumentException("a flow from host " + source + " to itself");
        }
        if (sizeBytes < 1) {
            throw new IllegalArgumentException("a flow of " + sizeBytes + " bytes");
        }
        if (count == src.length) {
            throw new IllegalStateException("more than " + src.length + " flows");
        }
        int f = count++;
        src[f] = source;
        dst[f] = destination;
        bytes[f] = sizeBytes;
        startPs[f] = atPs;
        finishPs[f] = -1;
        unfinished++;
        return f;
    }

    /** @return flows added */
    public int count() {
        return count;
    }

    /** @return flows not finished */
    public int unfinished() {
        return unfinished;
    }

    /** @return the source host of {@code f} */
    public int src(int f) {
        return src[f];
    }

    /** @return the destination host of {@code f} */
    public int dst(int f) {
        return dst[f];
    }

    /** @return the size of {@code f} in bytes */
    public long bytes(int f) {
        return bytes[f];
    }

    /** @return when {@code f} starts, in ps */
    public long startPs(int f) {
        return startPs[f];
    }

    /** @return when its last byte arrived, in ps; -1 while unfinished */
    public long finishPs(int f) {
        return finishPs[f];
    }

    /** Moves {@code f}'s start to {@code nowPs}: its transport posted it then (after connecting). */
    public void started(int f, long nowPs) {
        startPs[f] = nowPs;
    }

    /** Records that {@code f}'s last byte arrived at {@code nowPs} (once). */
    public void finish(int f, long nowPs) {
        if (finishPs[f] >= 0) {
            throw new IllegalStateException("flow " + f + " finished twice");
        }
        finishPs[f] = nowPs;
        unfinished--;
    }

    /** Counts a packet of {@code f} sent again. */
    public void retransmitted(int f) {
        retransmissions[f]++;
    }

    /** @return packets of {@code f} sent again */
    public long retransmissions(int f) {
        return retransmissions[f];
    }

    /** @return the completion times of the finished flows, in ps, sorted */
    public long[] sortedFctPs() {
        long[] fct = new long[count - unfinished];
        int n = 0;
        for (int f = 0; f < count; f++) {
            if (finishPs[f] >= 0) {
                fct[n++] = finishPs[f] - startPs[f];
            }
        }
        Arrays.sort(fct);
        return fct;
    }

    /** @return all retransmissions */
    public long totalRetransmissions() {
        long sum = 0;
        for (int f = 0; f < count; f++) {
            sum += retransmissions[f];
        }
        return sum;
    }
}
