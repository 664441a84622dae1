package io.jccl.net;

import java.lang.foreign.MemorySegment;

/** The receiving end of a one-directional connection. */
public interface RecvConnection extends AutoCloseable {
    /**
     * Posts a receive. The n-th receive posted matches the n-th message sent on the connection.
     *
     * @param buffer        where the message goes (heap or native)
     * @param offset        byte offset in {@code buffer}
     * @param capacityBytes the most bytes the message may have; a longer one fails with
     *                      {@link NetException.Reason#TRUNCATED}
     * @param expectedTag   the tag the message must carry; another fails with
     *                      {@link NetException.Reason#TAG_MISMATCH} and nothing is written
     * @param mr            the registration covering the range, or null where the transport needs none
     * @return the request, or null when {@link NetProperties#maxInflightRequests()} are outstanding
     * @throws NetException when the connection is broken
     */
    NetRequest irecv(MemorySegment buffer, long offset, long capacityBytes, long expectedTag, MemoryRegistration mr);

    /**
     * Whether a receive posted before its message is due saves time: a receiver-driven transport opens the sender's
     * way when the receive is posted (a clear-to-send), so a sender whose receive was posted early finds that at
     * hand instead of waiting a one-way trip for it. The collectives then post the receive of a lane's next step
     * while the current one still runs (a pipelined rendezvous). False (the default) where the sender writes
     * without waiting for the receiver anyway.
     *
     * @return true to have receives posted a step ahead
     */
    default boolean receivesAhead() {
        return false;
    }

    /** @return whether {@link #irecv(RecvSink, long, long)} is supported */
    default boolean acceptsSinks() {
        return false;
    }

    /**
     * Whether a sink may touch {@code segment}: a transport that runs sinks on a thread of its own (a driver thread)
     * cannot reach memory confined to the caller's thread, so a collective binds such memory into no sink.
     *
     * @param segment memory a sink would read or write
     * @return whether every thread that may call a sink of this connection can access it
     */
    default boolean sinkReaches(MemorySegment segment) {
        return true;
    }

    /**
     * Posts a receive whose bytes go to {@code sink} where the transport holds them, instead of into a buffer. It
     * matches messages as {@link #irecv(MemorySegment, long, long, long, MemoryRegistration)} does, and the sink
     * sees a message only once its tag and length are accepted; the receive completes after the sink took the last
     * piece. A receive that fails after its first piece leaves what the sink did with the pieces before.
     *
     * @param sink          takes the message's bytes, piece by piece, on the thread that drives the connection
     * @param capacityBytes the most bytes the message may have
     * @param expectedTag   the tag the message must carry
     * @return the request, or null when {@link NetProperties#maxInflightRequests()} are outstanding
     * @throws UnsupportedOperationException when {@link #acceptsSinks()} is false
     * @throws NetException                  when the connection is broken
     */
    default NetRequest irecv(RecvSink sink, long capacityBytes, long expectedTag) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not take receive sinks");
    }

    /** Closes this end. */
    @Override
    void close();
}
