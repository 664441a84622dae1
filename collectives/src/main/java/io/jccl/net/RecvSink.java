package io.jccl.net;

import java.lang.foreign.MemorySegment;

/**
 * Takes a received message's bytes where the transport holds them (its receive ring, or the sender's memory),
 * instead of having them copied into a receive buffer first: a collective combines them with its local operand
 * straight into the result, one pass over memory fewer. See {@link RecvConnection#irecv(RecvSink, long, long)}.
 */
@FunctionalInterface
public interface RecvSink {
    /**
     * Pieces start at message offsets that are multiples of this, and are multiples of it long except the last one,
     * so an element of any data type (at most this long, a power of two) never straddles two pieces.
     */
    long ALIGN_BYTES = 64;

    /**
     * Takes the next piece of the message, in message order. The memory is the transport's: it may be read during
     * this call only, and never written.
     *
     * @param from          memory holding the piece
     * @param fromOffset    where the piece starts in {@code from}
     * @param messageOffset where the piece starts in the message
     * @param bytes         the piece's length
     */
    void accept(MemorySegment from, long fromOffset, long messageOffset, long bytes);
}
