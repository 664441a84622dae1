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
    /** Per flow: the first flow waiting for it (-1: none), and the next flow waiting for the same one. */
    private final int[] firstDependent;
    private final int[] nextDependent;
    private java.util.function.IntConsumer onReady = f -> { };
    private int count;
    private int unfinished;

    /** A start time meaning: when the flow it waits for has finished ({@link #addAfter}). */
    public static final long WAITING = Long.MAX_VALUE;

    /** @param capacity the most flows this holds */
    public Flows(int capacity) {
        src = new int[capacity];
        dst = new int[capacity];
        bytes = new long[capacity];
        startPs = new long[capacity];
        finishPs = new long[capacity];
        retransmissions = new long[capacity];
        firstDependent = new int[capacity];
        nextDependent = new int[capacity];
        java.util.Arrays.fill(firstDependent, -1);
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

    /**
     * Adds a flow that starts when flow {@code after} has finished (its last byte at its destination), as a step of a
     * collective waits for the data of the step before.
     *
     * @return the new flow's id
     */
    public int addAfter(int source, int destination, long sizeBytes, int after) {
        if (after < 0 || after >= count) {
            throw new IllegalArgumentException("flow " + after + " to wait for does not exist");
        }
        int f = add(source, destination, sizeBytes, WAITING);
        nextDependent[f] = firstDependent[after];
        firstDependent[after] = f;
        return f;
    }

    /** Calls {@code listener} with each flow that becomes ready to start (its wait over), at that moment. */
    public void onReady(java.util.function.IntConsumer listener) {
        this.onReady = java.util.Objects.requireNonNull(listener, "listener");
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

    /** @return when {@code f} starts, in ps ({@link #WAITING} while it waits for another flow) */
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
        for (int g = firstDependent[f]; g >= 0; g = nextDependent[g]) {
            startPs[g] = nowPs;
            onReady.accept(g);
        }
    }

    /** @return from the first start to the last finish, in ps (-1 while a flow is unfinished): a job's time */
    public long jobPs() {
        if (unfinished > 0 || count == 0) {
            return -1;
        }
        long first = Long.MAX_VALUE;
        long last = 0;
        for (int f = 0; f < count; f++) {
            first = Math.min(first, startPs[f]);
            last = Math.max(last, finishPs[f]);
        }
        return last - first;
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
