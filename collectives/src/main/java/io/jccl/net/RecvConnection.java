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

    /** Closes this end. */
    @Override
    void close();
}
