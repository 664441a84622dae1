package io.jccl.net.tcp;

import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.RecvConnection;
import java.lang.foreign.MemorySegment;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * The receiving end of a TCP connection.
 *
 * <p>Socket 0 carries every message header, in message order: reading the next one matches the oldest
 * unmatched receive, and queues the message's stripes on the sockets that carry them ({@link RecvSocket}; a BULK
 * message's on the sender's bulk sockets, {@link SocketLayout}). Each
 * socket then reads its stripes in order, independently of the others; a receive completes once all its stripes
 * are in its memory, and receives complete in posting order.
 *
 * <p>A message whose tag differs from the receive's, or that is longer than its capacity, fails that receive
 * ({@link NetException.Reason#TAG_MISMATCH} or {@link NetException.Reason#TRUNCATED}) as soon as its header is
 * read (once the receives before it completed); its stripes are then read and discarded, never written to the
 * receive buffer. The connection stays usable: the next receive matches the next message. A header that breaks
 * the protocol (bad magic, flags, stripe count or length; a stripe header other than the one due) breaks the
 * connection: pending and later receives fail with {@link NetException.Reason#PROTOCOL_ERROR}. End of stream or a
 * reset on a socket fails, with {@link NetException.Reason#PEER_CLOSED}, the oldest receive that needs bytes
 * from it that never came, and every later one; receives the data already read satisfies still complete.
 */
final class TcpRecvConnection extends TcpConnection implements RecvConnection {
    private final int peerRank;
    private final RecvSocket[] sockets;
    /** The oldest receive whose message header has not been read yet. */
    private long matchSeq;

    TcpRecvConnection(SocketChannel[] channels, int peerRank, String description, TcpNetTransport transport,
                      SocketLayout layout) {
        super(channels, description, transport, layout);
        this.peerRank = peerRank;
        this.sockets = StripeSocket.perChannel(channels, RecvSocket[]::new, RecvSocket::new);
    }

    /** @return the rank the connecting side named in its hello frames */
    int peerRank() {
        return peerRank;
    }

    /** @return the bytes socket {@code index} has read since the connection opened (tests) */
    long bytesRead(int index) {
        return sockets[index].readBytes;
    }

    @Override
    public NetRequest irecv(MemorySegment buffer, long offset, long capacityBytes, long expectedTag,
                            MemoryRegistration mr) {
        if (buffer != null && buffer.isReadOnly()) {
            throw new IllegalArgumentException("receive buffer is read-only");
        }
        return takeQueued(buffer, offset, capacityBytes, expectedTag);
    }

    @Override
    int wantedOps(int socket) {
        // With no room for another stripe, matchNext() waits for room, not for bytes.
        boolean matching = socket == 0 && matchSeq < queue.endSeq() && roomForAStripe();
        return sockets[socket].wantsRead(matching) ? SelectionKey.OP_READ : 0;
    }

    /** @return whether every socket can queue another stripe (a message's header may be matched) */
    private boolean roomForAStripe() {
        for (RecvSocket socket : sockets) {
            if (socket.full()) {
                return false;
            }
        }
        return true;
    }

    @Override
    protected void progress() {
        if (!usable()) {
            return;
        }
        try {
            RecvSocket lead = sockets[0];
            do {
                lead.drain(description);
            } while (lead.queued() == 0 && matchNext());
            for (int i = 1; i < sockets.length; i++) {
                sockets[i].drain(description);
            }
        } catch (NetException e) {
            breakConnection(e.reason(), e.getMessage(), null);
            return;
        }
        if (isClosed()) {
            usable();
            return;
        }
        while (queue.size() > 0 && queue.headSeq() < matchSeq && queue.get(0).pendingSockets == 0) {
            TcpRequest oldest = queue.get(0);
            queue.pop();
            if (oldest.rejection != null) {
                oldest.fail(oldest.rejection);
            } else {
                oldest.complete(oldest.messageBytes);
            }
        }
        failIfStarved();
    }

    /**
     * Reads the next message header on socket 0 for the oldest unmatched receive, and queues the message's
     * stripes. A mismatching tag or excessive length fails the receive (reported once it is the oldest) and queues
     * the stripes to be drained.
     *
     * @return false when there is no receive to match, a socket has no room for another stripe, or the header is
     *         not all here yet
     */
    private boolean matchNext() {
        if (matchSeq == queue.endSeq() || !roomForAStripe()) {
            return false;
        }
        RecvSocket lead = sockets[0];
        // A receive with room for a payload that would go straight into its memory most likely gets one (collectives
        // post receives of the size they expect): read the header alone, so that none of the payload is staged.
        TcpRequest next = queue.bySeq(matchSeq);
        int leadStripes = layout.shared() ? 1 : sockets.length;
        if (!lead.fill(Wire.HEADER_BYTES, lead.goesDirect(next, Wire.stripeStart(next.sizeBytes(), leadStripes, 1)))) {
            return false;
        }
        int at = lead.staging.position();
        long length = Wire.checkHeader(lead.staging, at, sockets.length, layout, description);
        int stripes = Wire.headerStripes(lead.staging, at);
        boolean bulk = Wire.headerBulk(lead.staging, at);
        long tag = Wire.headerTag(lead.staging, at);
        lead.staging.position(at + Wire.HEADER_BYTES);
        TcpRequest receive = queue.bySeq(matchSeq++);
        receive.messageBytes = length;
        receive.stripes = stripes;
        receive.firstSocket = bulk ? layout.bulkFirst() : 0;
        if (tag != receive.tag()) {
            receive.rejection = NetException.tagMismatch(receive.tag(), tag);
        } else if (length > receive.sizeBytes()) {
            receive.rejection = new NetException(NetException.Reason.TRUNCATED, "message of " + length
                    + " bytes does not fit the receive's capacity of " + receive.sizeBytes() + " bytes on " + description);
        }
        TcpRequest target = receive.rejection == null ? receive : null;
        receive.pendingSockets = target == null ? 0 : receive.payloadSockets();
        for (int i = receive.firstSocket; i < receive.firstSocket + stripes; i++) {
            long from = receive.stripeStart(length, i);
            sockets[i].push(target, receive.offset() + from, receive.stripeStart(length, i + 1) - from, tag);
        }
        return true;
    }

    /**
     * Breaks the connection when the oldest pending receive needs bytes from a socket whose stream ended: they
     * will never come. Receives before it have completed; it and every later one fail with
     * {@link NetException.Reason#PEER_CLOSED}.
     */
    private void failIfStarved() {
        if (queue.size() == 0) {
            return;
        }
        TcpRequest oldest = queue.get(0);
        boolean matched = queue.headSeq() < matchSeq;
        for (RecvSocket socket : sockets) {
            boolean needed = matched ? (oldest.pendingSockets & (1 << socket.index)) != 0
                    : socket.index == 0 || socket.full();
            if (socket.dry && needed) {
                String where = matched ? " in the middle of a message"
                        : socket.staging.hasRemaining() ? " in the middle of a message header" : "";
                String message = socket.failure != null
                        ? description + " failed: the peer closed the connection or went away (" + socket.failure + ")"
                        : "peer closed " + description + where;
                breakConnection(NetException.Reason.PEER_CLOSED, message, socket.failure);
                return;
            }
        }
    }

    @Override
    protected void pendingFailed() {
        for (RecvSocket socket : sockets) {
            socket.reset();
        }
        matchSeq = queue.endSeq();
    }
}
