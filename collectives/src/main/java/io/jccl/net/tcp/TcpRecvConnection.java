package io.jccl.net.tcp;

import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.RecvConnection;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.SocketChannel;

/**
 * The receiving end of a TCP connection.
 *
 * <p>Progress reads into the staging buffer, which may then hold the headers and payloads of several short
 * messages; the oldest pending receive takes the next header, and its payload is copied out of the staging
 * buffer, or, for the rest of a native destination of at least {@value TcpConnection#DIRECT_MIN_BYTES} bytes,
 * read straight into it with the read bounded to the message.
 *
 * <p>A message whose tag differs from the receive's, or that is longer than its capacity, fails that receive
 * ({@link NetException.Reason#TAG_MISMATCH} or {@link NetException.Reason#TRUNCATED}) as soon as its header is
 * read; its payload is then read and discarded, never written to the receive buffer. The connection stays
 * usable: the next receive matches the next message. A header that breaks the protocol (bad magic, flags or
 * length) breaks the connection: pending and later receives fail with
 * {@link NetException.Reason#PROTOCOL_ERROR}. End of stream or a reset fails the receives that the data already
 * read cannot satisfy with {@link NetException.Reason#PEER_CLOSED}.
 */
final class TcpRecvConnection extends TcpConnection implements RecvConnection {
    private final int peerRank;
    /** Payload bytes of a failed receive's message still to skip. */
    private long discardBytes;
    /** Whether the peer's end of stream was read. */
    private boolean endOfStream;

    TcpRecvConnection(SocketChannel channel, int peerRank, String description, TcpNetTransport transport) {
        super(channel, description, transport);
        this.peerRank = peerRank;
        staging.limit(0);
    }

    /** @return the rank the connecting side named in its hello frame */
    int peerRank() {
        return peerRank;
    }

    @Override
    public NetRequest irecv(MemorySegment buffer, long offset, long capacityBytes, long expectedTag,
                            MemoryRegistration mr) {
        if (buffer != null && buffer.isReadOnly()) {
            throw new IllegalArgumentException("receive buffer is read-only");
        }
        return post(buffer, offset, capacityBytes, expectedTag);
    }

    @Override
    void progress() {
        if (!usable()) {
            return;
        }
        try {
            while (queue.size() > 0) {
                if (discardBytes > 0 && !discard()) {
                    return;
                }
                TcpRequest request = queue.get(0);
                if (request.messageBytes < 0 && !matchHeader(request)) {
                    return;
                }
                if (request.state != TcpRequest.PENDING) {
                    continue;
                }
                if (!receivePayload(request)) {
                    return;
                }
                queue.pop();
                request.complete(request.messageBytes);
            }
        } catch (IOException e) {
            ioFailed(e);
        } catch (NetException e) {
            breakConnection(e.reason(), e.getMessage(), null);
        }
    }

    /**
     * Reads the next header for the oldest receive. A mismatching tag or excessive length fails and dequeues
     * the receive and sets up the discard of the payload.
     *
     * @return false when the header is not all here yet, or the stream ended (receives then failed)
     */
    private boolean matchHeader(TcpRequest request) throws IOException {
        if (!fill(Wire.HEADER_BYTES)) {
            return false;
        }
        int at = staging.position();
        long length = Wire.checkHeader(staging, at, description);
        long tag = Wire.headerTag(staging, at);
        staging.position(at + Wire.HEADER_BYTES);
        if (tag != request.tag) {
            reject(request, NetException.tagMismatch(request.tag, tag), length);
        } else if (length > request.sizeBytes) {
            reject(request, new NetException(NetException.Reason.TRUNCATED, "message of " + length
                    + " bytes does not fit the receive's capacity of " + request.sizeBytes + " bytes on " + description),
                    length);
        } else {
            request.messageBytes = length;
        }
        return true;
    }

    private void reject(TcpRequest request, NetException failure, long length) {
        queue.pop();
        request.fail(failure);
        discardBytes = length;
    }

    /**
     * Makes the staging buffer hold at least {@code bytes} unread bytes.
     *
     * @return false when they are not here yet, or the stream ended (receives then failed)
     */
    private boolean fill(int bytes) throws IOException {
        while (staging.remaining() < bytes) {
            if (endOfStream) {
                peerClosed(staging.remaining() > 0 ? " in the middle of a message header" : "");
                return false;
            }
            staging.compact();
            int read = channel.read(staging);
            staging.flip();
            if (read < 0) {
                endOfStream = true;
            } else if (read == 0) {
                return false;
            }
        }
        return true;
    }

    /** @return true when the whole payload is in the destination */
    private boolean receivePayload(TcpRequest request) throws IOException {
        while (request.movedBytes < request.messageBytes) {
            long remaining = request.messageBytes - request.movedBytes;
            if (staging.hasRemaining()) {
                int copied = (int) Math.min(remaining, staging.remaining());
                MemorySegment.copy(stagingSegment, staging.position(), request.segment,
                        request.offset + request.movedBytes, copied);
                staging.position(staging.position() + copied);
                request.movedBytes += copied;
                continue;
            }
            if (endOfStream) {
                peerClosed(" in the middle of a message");
                return false;
            }
            int read;
            if (request.segment.isNative() && remaining >= DIRECT_MIN_BYTES) {
                read = channel.read(views.view(request.segment, request.offset + request.movedBytes, remaining));
                if (read > 0) {
                    request.movedBytes += read;
                }
            } else {
                read = refill();
            }
            if (read < 0) {
                endOfStream = true;
            } else if (read == 0) {
                return false;
            }
        }
        return true;
    }

    /** @return true when the rejected message's payload has been skipped */
    private boolean discard() throws IOException {
        while (discardBytes > 0) {
            if (staging.hasRemaining()) {
                int skipped = (int) Math.min(discardBytes, staging.remaining());
                staging.position(staging.position() + skipped);
                discardBytes -= skipped;
                continue;
            }
            if (endOfStream) {
                peerClosed(" in the middle of a message");
                return false;
            }
            int read = refill();
            if (read < 0) {
                endOfStream = true;
            } else if (read == 0) {
                return false;
            }
        }
        return true;
    }

    /** Reads into the empty staging buffer. */
    private int refill() throws IOException {
        staging.clear();
        int read = channel.read(staging);
        staging.flip();
        return read;
    }

    private void peerClosed(String where) {
        breakConnection(NetException.Reason.PEER_CLOSED, "peer closed " + description + where, null);
    }

    @Override
    void pendingFailed() {
        discardBytes = 0;
        staging.limit(0);
    }
}
