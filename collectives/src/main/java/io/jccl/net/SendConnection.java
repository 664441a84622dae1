package io.jccl.net;

import java.lang.foreign.MemorySegment;

/** The sending end of a one-directional connection. */
public interface SendConnection extends AutoCloseable {
    /**
     * Posts a send. The transport reads {@code buffer} until the request completes; the caller must not
     * modify that range before then.
     *
     * @param buffer    the memory holding the message (heap or native)
     * @param offset    byte offset of the message in {@code buffer}
     * @param sizeBytes message length; 0 is allowed
     * @param tag       the tag the receiver checks
     * @param mr        the registration covering the range, or null where the transport needs none
     * @return the request, or null when {@link NetProperties#maxInflightRequests()} are outstanding
     * @throws NetException when the connection is broken
     */
    NetRequest isend(MemorySegment buffer, long offset, long sizeBytes, long tag, MemoryRegistration mr);

    /**
     * Posts a send whose receiver should read the message where it lies, in one copy, where this connection can
     * (the shm transport's cross-memory attach); elsewhere the same as {@link #isend}. The caller asks for it for
     * operations up to {@link #singleCopyMaxOpBytes()}; the buffer rules are those of {@link #isend}.
     *
     * @param buffer    the memory holding the message (heap or native)
     * @param offset    byte offset of the message in {@code buffer}
     * @param sizeBytes message length; 0 is allowed
     * @param tag       the tag the receiver checks
     * @param mr        the registration covering the range, or null where the transport needs none
     * @return the request, or null when {@link NetProperties#maxInflightRequests()} are outstanding
     * @throws NetException when the connection is broken
     */
    default NetRequest isendSingleCopy(MemorySegment buffer, long offset, long sizeBytes, long tag,
                                       MemoryRegistration mr) {
        return isend(buffer, offset, sizeBytes, tag, mr);
    }

    /**
     * The largest operation (bytes per rank) whose messages this connection moves faster read where they lie
     * ({@link #isendSingleCopy}) than by its default path: a single copy is made by the receiving core alone, and
     * for large operations a default path whose copies both cores share can win.
     *
     * @return bytes per rank; 0 where the connection has no single-copy path (the default)
     */
    default long singleCopyMaxOpBytes() {
        return 0;
    }

    /**
     * The peer's box lines, where its memory is mapped in this process ({@link NetTransport#boxLines()} on its side).
     *
     * @return the peer's lines, or null where this connection cannot read the peer's memory (the default)
     */
    default BoxPeer boxPeer() {
        return null;
    }

    /** Closes this end; the peer's pending and later receives fail with {@link NetException.Reason#PEER_CLOSED}. */
    @Override
    void close();
}
