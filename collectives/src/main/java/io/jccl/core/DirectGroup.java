package io.jccl.core;

import io.jccl.reduce.Reducer;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What the ranks of one {@link io.jccl.Communicator#local} call share so that an all-reduce can read the peers'
 * buffers in place ({@link DirectAllReduce}) instead of sending messages: one {@link Slot} per rank, written by
 * that rank only, and a flag that says the group broke.
 *
 * <p>Per rank: the buffers, reducer and call identity (sequence number and fingerprint tag) of its current direct
 * all-reduce, published by its phase counter; its executor's signal, so that a rank that advances a phase wakes
 * its peers; whether it is reading peers' memory right now (its read section); and the call number and tag of the
 * last collective it started, whatever its algorithm ({@link #announce}), so that a rank waiting in a direct
 * all-reduce sees a peer that called something else with the same call number and fails instead of waiting.
 *
 * <p>Memory order: a rank writes its published fields plainly, then its phase with release semantics; a peer
 * reads the phase with acquire semantics before it reads those fields, and a rank publishes another operation only
 * after every peer has shown, by its phase, that it no longer reads the previous one. The read sections and
 * {@link #markBroken()} pair volatile writes and reads (Dekker): a reader sets its flag, then reads the broken
 * flag; a failing rank sets the broken flag, then waits until no reader's flag is set. Either the reader sees the
 * group broken and reads nothing, or the failing rank waits until it finished.
 */
final class DirectGroup {
    private final Slot[] slots;
    private volatile boolean broken;

    /** @param size the ranks of the {@code Communicator.local} call, at least 2 */
    DirectGroup(int size) {
        if (size < 2) {
            throw new IllegalArgumentException("a direct group needs at least 2 ranks, got " + size);
        }
        slots = new Slot[size];
        for (int r = 0; r < size; r++) {
            slots[r] = new Slot();
        }
    }

    int size() {
        return slots.length;
    }

    /** Rank {@code rank}'s communicator takes part: peers wake its executor through {@code signal}. */
    void join(int rank, ExecutorSignal signal) {
        slots[rank].signal = signal;
    }

    Slot slot(int rank) {
        return slots[rank];
    }

    /**
     * Rank {@code rank} starts the collective with call number {@code seq} and fingerprint {@code tag}, whatever
     * algorithm runs it. The tag is written before the number: a reader that sees the number sees this tag or a
     * later one, whose call number (in the tag) differs.
     */
    void announce(int rank, long seq, long tag) {
        Slot s = slots[rank];
        s.announcedTag = tag;
        s.announcedSeq = seq;
    }

    /** Wakes the executors of every rank but {@code rank}: it advanced a phase they may wait for. */
    void signalPeers(int rank) {
        for (int p = 0; p < slots.length; p++) {
            if (p != rank) {
                ExecutorSignal signal = slots[p].signal;
                if (signal != null) {
                    signal.wake();   // as before parkWatching: an in-JVM peer may wait on this rank's executor
                }
            }
        }
    }

    /** A rank failed during a direct all-reduce: nobody reads peers' buffers any more. Permanent. */
    void markBroken() {
        broken = true;
    }

    boolean broken() {
        return broken;
    }

    /** Padding before a slot's fields: slots of different ranks never share a cache line (or its prefetch pair). */
    @SuppressWarnings("unused")
    abstract static class SlotPadding {
        private long p01;
        private long p02;
        private long p03;
        private long p04;
        private long p05;
        private long p06;
        private long p07;
        private long p08;
        private long p09;
        private long p10;
        private long p11;
        private long p12;
        private long p13;
        private long p14;
        private long p15;
    }

    /** The fields of a slot; only its rank writes them. */
    abstract static class SlotFields extends SlotPadding {
        // Published for the current direct all-reduce, before the phase (release); read after it (acquire).
        MemorySegment send;
        MemorySegment recv;
        Reducer reducer;
        long seq = -1;
        long tag;
        /** See {@link DirectAllReduce}: 3k-2 published, 3k-1 own block reduced, 3k done copying, for call k-1. */
        @SuppressWarnings("unused")   // only through Slot.PHASE
        long phase;
        /** Set while this rank reads peers' buffers. */
        volatile boolean reading;
        /** The last collective this rank started: its call number (-1: none yet) and fingerprint tag. */
        volatile long announcedSeq = -1;
        volatile long announcedTag;
        /** Wakes this rank's executor; null until it joined. */
        volatile ExecutorSignal signal;
    }

    /** One rank's slot. */
    @SuppressWarnings("unused")
    static final class Slot extends SlotFields {
        private static final VarHandle PHASE = VarHandles.field(MethodHandles.lookup(), SlotFields.class, "phase",
                long.class);

        private long q01;
        private long q02;
        private long q03;
        private long q04;
        private long q05;
        private long q06;
        private long q07;
        private long q08;
        private long q09;
        private long q10;
        private long q11;
        private long q12;
        private long q13;
        private long q14;
        private long q15;

        /** @return the phase, with acquire semantics: what was published before it is visible */
        long phase() {
            return (long) PHASE.getAcquire(this);
        }

        /** Sets the phase (owner only), with release semantics: what was written and read before it is ordered. */
        void phase(long value) {
            PHASE.setRelease(this, value);
        }
    }
}
