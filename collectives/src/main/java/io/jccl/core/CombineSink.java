package io.jccl.core;

import io.jccl.net.RecvSink;
import io.jccl.reduce.Reducer;

import java.lang.foreign.MemorySegment;

/**
 * A step's reduction done where the transport holds the received data ({@link RecvSink}): each piece is combined
 * with the local operand straight into the result, so the data is never copied into staging first. One per plan
 * lane, bound when the step posts its receive and reused from step to step (nothing allocated per operation).
 *
 * <p>The operands keep the order the staged path gives them (an exchange: local first; a receive-reduce: received
 * first), so both paths produce the same bits.
 */
final class CombineSink implements RecvSink {
    private Reducer reducer;
    private MemorySegment local;
    private long localOffset;
    private MemorySegment out;
    private long outOffset;
    private int elementBytes;
    private boolean receivedFirst;
    private boolean localIsRaw;
    private boolean finish;

    /**
     * @param receivedFirst the received piece is the first operand ({@code combine(received, local)})
     * @param localIsRaw    the local operand is raw input: {@link Reducer#combineLocal} (received first)
     */
    void bind(Reducer reducer, MemorySegment local, long localOffset, MemorySegment out, long outOffset,
              int elementBytes, boolean receivedFirst, boolean localIsRaw, boolean finish) {
        this.reducer = reducer;
        this.local = local;
        this.localOffset = localOffset;
        this.out = out;
        this.outOffset = outOffset;
        this.elementBytes = elementBytes;
        this.receivedFirst = receivedFirst;
        this.localIsRaw = localIsRaw;
        this.finish = finish;
    }

    /** Drops the references to the operation's memory once the step is done. */
    void clear() {
        reducer = null;
        local = null;
        out = null;
    }

    @Override
    public void accept(MemorySegment from, long fromOffset, long messageOffset, long bytes) {
        if (messageOffset % elementBytes != 0 || bytes % elementBytes != 0) {
            throw new IllegalStateException("the transport split an element: " + bytes + " bytes at message offset "
                    + messageOffset + " for elements of " + elementBytes + " bytes");
        }
        long count = bytes / elementBytes;
        long at = localOffset + messageOffset;
        long to = outOffset + messageOffset;
        if (localIsRaw) {
            reducer.combineLocal(from, fromOffset, local, at, out, to, count, finish);
        } else if (receivedFirst) {
            reducer.combine(from, fromOffset, local, at, out, to, count, finish);
        } else {
            reducer.combine(local, at, from, fromOffset, out, to, count, finish);
        }
    }
}
