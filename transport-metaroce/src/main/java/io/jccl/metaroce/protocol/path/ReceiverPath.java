package io.jccl.metaroce.protocol.path;

/**
 * The receiving side of one logical path: the cumulative PSN (the lowest PSN still awaited) and a 256-bit
 * bitmap of what arrived above it, the ECN count, and when an ACK is due.
 */
public final class ReceiverPath {
    private static final int WINDOW = SenderPath.WINDOW;

    private int generation;
    private boolean seen;
    private int cumulative;
    private final long[] bits = new long[WINDOW / 64];   // bit i: PSN cumulative + 1 + i
    private int ecnCount;
    private int unacked;
    private boolean ackNow;
    private long ackDueNs = Long.MAX_VALUE;
    private long echoNs;

    public int generation() {
        return generation;
    }

    /** @return true once a packet of the current generation arrived */
    public boolean seen() {
        return seen;
    }

    /** Starts over for a new generation (the sender moved the path to a new route). */
    public void reset(int newGeneration) {
        generation = newGeneration;
        seen = false;
        cumulative = 0;
        java.util.Arrays.fill(bits, 0);
        ecnCount = 0;
        unacked = 0;
        ackNow = false;
        ackDueNs = Long.MAX_VALUE;
    }

    /** Outcome of {@link #accept}. */
    public enum Arrival {
        /** First time this PSN arrived. */
        NEW,
        /** Already received (or given up: below the window). */
        DUPLICATE
    }

    /**
     * Marks a PSN received (call only once its payload is in place).
     *
     * @return whether it was new
     */
    public Arrival accept(int psn) {
        seen = true;
        int rel = psn - cumulative;
        if (rel < 0) {
            return Arrival.DUPLICATE;
        }
        if (rel == 0) {
            passArrived();
            return Arrival.NEW;
        }
        boolean newCumulativeArrived = false;
        if (rel > WINDOW) {
            // Beyond the bitmap: give up the oldest holes so that this PSN fits (see the wire spec). The PSN that
            // becomes the cumulative one may have arrived already; then the cumulative PSN moves on past it.
            int slide = rel - WINDOW;
            newCumulativeArrived = slide <= WINDOW && bit(slide - 1);
            cumulative += slide;
            shift(slide);
            rel = WINDOW;
        }
        int i = rel - 1;
        if (bit(i)) {
            return Arrival.DUPLICATE;
        }
        bits[i >>> 6] |= 1L << (i & 63);
        if (newCumulativeArrived) {
            passArrived();
        }
        return Arrival.NEW;
    }

    /**
     * The cumulative PSN has arrived: moves past it and past every PSN right above it that arrived too. Bit 0 says
     * whether PSN cumulative + 1 arrived, so the run of set bits from bit 0 counts the further PSNs to pass.
     */
    private void passArrived() {
        int run = 0;
        while (run < WINDOW && bit(run)) {
            run++;
        }
        cumulative += run + 1;
        shift(run + 1);
    }

    private boolean bit(int i) {
        return (bits[i >>> 6] >>> (i & 63) & 1) != 0;
    }

    /** Shifts the bitmap down by {@code n} bits (the cumulative PSN moved up by n). */
    private void shift(int n) {
        if (n >= WINDOW) {
            java.util.Arrays.fill(bits, 0);
            return;
        }
        int words = n >>> 6;
        int rest = n & 63;
        for (int w = 0; w < bits.length; w++) {
            int from = w + words;
            long lo = from < bits.length ? bits[from] : 0;
            long hi = from + 1 < bits.length ? bits[from + 1] : 0;
            bits[w] = rest == 0 ? lo : (lo >>> rest) | (hi << (64 - rest));
        }
    }

    /** Records that a packet (new or duplicate) arrived and decides when to acknowledge. */
    public void scheduleAck(long nowNs, boolean immediately, int ackEvery, long delayNs, long echo, boolean marked) {
        if (marked) {
            ecnCount++;
        }
        echoNs = echo;
        unacked++;
        if (immediately || marked || unacked >= ackEvery) {
            ackNow = true;
        } else if (ackDueNs == Long.MAX_VALUE) {
            ackDueNs = nowNs + delayNs;
        }
    }

    /** @return true when an ACK should go out now */
    public boolean ackDue(long nowNs) {
        return unacked > 0 && (ackNow || nowNs - ackDueNs >= 0);
    }

    /** @return when the delayed ACK is due, or Long.MAX_VALUE */
    public long ackDueNs() {
        return unacked == 0 ? Long.MAX_VALUE : ackNow ? Long.MIN_VALUE : ackDueNs;
    }

    /** The ACK went out. */
    public void acked() {
        unacked = 0;
        ackNow = false;
        ackDueNs = Long.MAX_VALUE;
    }

    public int cumulative() {
        return cumulative;
    }

    public long word(int i) {
        return bits[i];
    }

    public int ecnCount() {
        return ecnCount;
    }

    public long echoNs() {
        return echoNs;
    }

    /** @return true when a PSN above the cumulative one has arrived while the cumulative one has not (a hole) */
    public boolean hasHole() {
        for (long w : bits) {
            if (w != 0) {
                return true;
            }
        }
        return false;
    }
}
