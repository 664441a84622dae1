package io.jccl.net;

import java.lang.foreign.MemorySegment;

/**
 * Takes a received message's bytes where the transport holds them (its receive ring, the sender's memory, a
 * datagram just received), instead of having them copied into a receive buffer first: a collective combines them
 * with its local operand straight into the result, one pass over memory fewer. See
 * {@link RecvConnection#irecv(RecvSink, long, long)}.
 */
@FunctionalInterface
public interface RecvSink {
    /**
     * Pieces start at message offsets that are multiples of this, and are multiples of it long except the one that
     * ends the message, so an element of any data type (at most this long, a power of two) never straddles two
     * pieces.
     */
    long ALIGN_BYTES = 8;

    /**
     * Takes a piece of the message. Every byte of the message comes exactly once, in pieces that may come in any
     * order (a transport that sprays packets over several paths places them as they arrive), on the thread that
     * drives the connection. The memory is the transport's: it may be read during this call only, and never
     * written.
     *
     * @param from          memory holding the piece
     * @param fromOffset    where the piece starts in {@code from}
     * @param messageOffset where the piece starts in the message
     * @param bytes         the piece's length
     */
    void accept(MemorySegment from, long fromOffset, long messageOffset, long bytes);
}
