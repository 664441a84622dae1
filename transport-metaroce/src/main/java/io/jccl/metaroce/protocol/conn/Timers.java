package io.jccl.metaroce.protocol.conn;

import java.util.Arrays;

/**
 * A fixed set of deadlines, one per slot, and the earliest of them. Setting a slot is O(1); the earliest is cached
 * and found again (one pass over the slots) only after the slot that held it moved later or was cleared, so a driver
 * that asks for the next deadline every duty cycle does not re-derive every timer of every path each time.
 *
 * <p>Deadlines are {@code System.nanoTime}-style instants compared as plain longs, as the connection's own clocks
 * are: {@link #NONE} ({@link Long#MAX_VALUE}) for a slot with nothing pending, {@link Long#MIN_VALUE} for one due at
 * once. Single-threaded; allocates nothing after construction.
 */
final class Timers {
    /** A slot with nothing pending. */
    static final long NONE = Long.MAX_VALUE;

    private final long[] deadlineNs;
    private long earliestNs = NONE;
    private int earliestSlot = -1;
    /** The slot that held the earliest deadline moved later: {@link #earliestNs} may be too early. */
    private boolean stale;

    /** @param slots how many deadlines */
    Timers(int slots) {
        if (slots < 1) {
            throw new IllegalArgumentException("slots must be at least 1, got " + slots);
        }
        deadlineNs = new long[slots];
        Arrays.fill(deadlineNs, NONE);
    }

    /** Sets one slot's deadline ({@link #NONE}: nothing pending). */
    void set(int slot, long atNs) {
        long old = deadlineNs[slot];
        if (old == atNs) {
            return;
        }
        deadlineNs[slot] = atNs;
        if (atNs < earliestNs) {
            earliestNs = atNs;
            earliestSlot = slot;
        } else if (slot == earliestSlot) {
            stale = true;   // it moved later: another slot may hold the earliest now
        }
    }

    /** @return the deadline of one slot, {@link #NONE} when nothing is pending there */
    long get(int slot) {
        return deadlineNs[slot];
    }

    /** @return the earliest deadline of all slots, {@link #NONE} when nothing is pending anywhere */
    long earliestNs() {
        if (stale) {
            long earliest = NONE;
            int at = -1;
            for (int i = 0; i < deadlineNs.length; i++) {
                if (deadlineNs[i] < earliest) {
                    earliest = deadlineNs[i];
                    at = i;
                }
            }
            earliestNs = earliest;
            earliestSlot = at;
            stale = false;
        }
        return earliestNs;
    }

    /** @return whether the earliest deadline of slots {@code from..from+count-1} is at or before {@code nowNs} */
    boolean anyDue(int from, int count, long nowNs) {
        for (int i = from; i < from + count; i++) {
            long d = deadlineNs[i];
            if (d != NONE && (d == Long.MIN_VALUE || d - nowNs <= 0)) {
                return true;
            }
        }
        return false;
    }
}
