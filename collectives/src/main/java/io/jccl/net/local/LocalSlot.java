package io.jccl.net.local;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** One message's rendezvous point. Fields are written by one side, then published by the state update. */
final class LocalSlot {
    static final int SEND_POSTED = 1;
    static final int RECV_POSTED = 2;
    static final int CLAIMED = 4;          // the second side is matching/copying
    static final int DONE = 8;
    static final int CANCELLED = 16;       // a side closed before the match
    static final int SEND_RETIRED = 32;
    static final int RECV_RETIRED = 64;

    static final int OUTCOME_OK = 0;
    static final int OUTCOME_TAG_MISMATCH = 1;
    static final int OUTCOME_TRUNCATED = 2;
    static final int OUTCOME_COPY_FAILED = 3;

    private static final VarHandle STATE;
    private static final VarHandle NEXT_SEQ;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(LocalSlot.class, "state", int.class);
            NEXT_SEQ = l.findVarHandle(LocalSlot.class, "nextSeq", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The sender half: the message's buffer, offset, length and tag. */
    final Half send = new Half();
    /** The receiver half: the receive buffer, offset, capacity and expected tag. */
    final Half recv = new Half();
    // Written by the matcher before DONE is published.
    int outcome;
    RuntimeException failure;

    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;
    @SuppressWarnings("unused") // accessed through NEXT_SEQ
    private volatile long nextSeq;

    LocalSlot(long firstSeq) {
        NEXT_SEQ.setRelease(this, firstSeq);
    }

    long nextSeq() {
        return (long) NEXT_SEQ.getAcquire(this);
    }

    int state() {
        return (int) STATE.getVolatile(this);
    }

    int getAndOr(int bits) {
        return (int) STATE.getAndBitwiseOr(this, bits);
    }

    boolean cas(int expected, int update) {
        return STATE.compareAndSet(this, expected, update);
    }

    /** Called by the side that retires last: clears the slot and opens it for message {@code seq + capacity}. */
    void recycle(long nextSeqValue) {
        send.buffer = null;
        recv.buffer = null;
        failure = null;
        STATE.setVolatile(this, 0);
        NEXT_SEQ.setRelease(this, nextSeqValue);
    }

    /**
     * Matches the two halves: checks tag and size, copies, publishes DONE. Only the side that set CLAIMED calls it.
     */
    void matchAndCopy() {
        try {
            if (send.tag != recv.tag) {
                outcome = OUTCOME_TAG_MISMATCH;
            } else if (send.bytes > recv.bytes) {
                outcome = OUTCOME_TRUNCATED;
            } else {
                outcome = OUTCOME_OK;
                if (send.bytes > 0) {
                    MemorySegment.copy(send.buffer, send.offset, recv.buffer, recv.offset, send.bytes);
                }
            }
        } catch (RuntimeException e) {
            // E.g. one side's arena was closed under it. Both requests fail; the slot must still reach DONE, or a
            // close waiting for the copy would wait forever.
            outcome = OUTCOME_COPY_FAILED;
            failure = e;
        } finally {
            getAndOr(DONE);
        }
    }

    /** One side's half of a message, written by that side before it posts (the state update publishes it). */
    static final class Half {
        MemorySegment buffer;
        long offset;
        /** The message's length on the sender half, the capacity on the receiver half. */
        long bytes;
        /** The message's tag on the sender half, the expected tag on the receiver half. */
        long tag;

        void set(MemorySegment buffer, long offset, long bytes, long tag) {
            this.buffer = buffer;
            this.offset = offset;
            this.bytes = bytes;
            this.tag = tag;
        }
    }
}
