package io.jccl.net.aeron;

import io.aeron.Image;
import io.aeron.Subscription;
import io.aeron.logbuffer.ControlledFragmentHandler;
import io.aeron.logbuffer.Header;
import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.RecvConnection;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import org.agrona.DirectBuffer;

/**
 * The receiving end of a connection: a subscription of its own on the connection's stream, and the one image
 * (the sender's log) on it.
 *
 * <p>Progress polls the image with a {@link ControlledFragmentHandler} that copies each frame's payload straight
 * from the log into the oldest pending receive. A message's first frame with no receive posted is left in the log
 * ({@code ABORT}): the receiver's position stays, so the sender's window fills and it stops, and nothing is ever
 * buffered on the side. A message whose tag differs from the receive's, or that is longer than its capacity, fails
 * that receive ({@link NetException.Reason#TAG_MISMATCH} or {@link NetException.Reason#TRUNCATED}) at its first
 * frame; its payload is skipped, never written, and the next receive matches the next message. A frame that breaks
 * the format breaks the connection with {@link NetException.Reason#PROTOCOL_ERROR}. A close frame, or the image
 * ending without one, fails pending and later receives with {@link NetException.Reason#PEER_CLOSED} once every
 * earlier message was taken.
 */
public abstract class AeronRecvConnection extends AeronConnection implements RecvConnection,
        ControlledFragmentHandler {
    /** Most frames one poll consumes (64 KiB each), so that one test() call stays short. */
    private static final int FRAGMENT_LIMIT = 64;

    private final Subscription subscription;
    private final Image image;
    /** Payload bytes of a rejected message still to skip. */
    private long discardBytes;
    /** Set by the handler when a frame breaks the format; the poll's caller breaks the connection. */
    private String protocolError;
    /** Set by the handler when the sender's close frame was read. */
    private boolean peerClosed;

    /**
     * @param transportName the transport's name, for messages
     * @param subscription  the connection's own subscription
     * @param image         the sender's image on it
     * @param peerRank      the sender's rank
     * @param description   names both ends and the stream, for messages
     * @param peer          the sender and how its death is noticed
     * @param resources     the transport's resources, where the connection is registered until it closes
     */
    protected AeronRecvConnection(String transportName, Subscription subscription, Image image, int peerRank,
                                  String description, Peer peer, Resources resources) {
        super(transportName, description, peerRank, peer, resources);
        this.subscription = subscription;
        this.image = image;
    }

    /** @return what may have ended the sender's log without a close frame, for messages */
    protected abstract String endOfStreamCause();

    @Override
    public final NetRequest irecv(MemorySegment buffer, long offset, long capacityBytes, long expectedTag,
                            MemoryRegistration mr) {
        if (buffer != null && buffer.isReadOnly()) {
            throw new IllegalArgumentException("receive buffer is read-only");
        }
        return takeQueued(buffer, offset, capacityBytes, expectedTag);
    }

    @Override
    protected final void progress() {
        if (!usable()) {
            return;
        }
        int fragments = image.controlledPoll(this, FRAGMENT_LIMIT);
        if (protocolError != null) {
            breakConnection(NetException.Reason.PROTOCOL_ERROR, description + ": rank " + peerRank + " sent "
                    + protocolError);
            return;
        }
        if (peerClosed) {
            breakConnection(NetException.Reason.PEER_CLOSED, "rank " + peerRank + " closed " + description
                    + (queue.size() > 0 && queue.first().started ? " in the middle of a message" : ""));
            return;
        }
        if (fragments == 0 && queue.size() > 0) {
            if (image.isClosed() || image.isEndOfStream()) {
                breakConnection(NetException.Reason.PEER_CLOSED, description + " failed: rank " + peerRank
                        + "'s log ended without a close (" + endOfStreamCause() + ")");
            } else {
                checkLiveness(false);
            }
        }
    }

    @Override
    public final Action onFragment(DirectBuffer buffer, int offset, int length, Header header) {
        if (length < Frames.CLOSE_BYTES) {
            protocolError = "a frame of " + length + " bytes";
            return Action.ABORT;
        }
        int kind = buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
        if (buffer.getInt(offset + 4, ByteOrder.LITTLE_ENDIAN) != 0) {
            protocolError = "a frame with nonzero reserved bits";
            return Action.ABORT;
        }
        if (kind == Frames.KIND_CLOSE) {
            peerClosed = true;
            return Action.BREAK;
        }
        boolean inMessage = discardBytes > 0 || (queue.size() > 0 && queue.first().started);
        if (inMessage) {
            if (kind != Frames.KIND_MORE) {
                protocolError = "a new message before the previous one ended";
                return Action.ABORT;
            }
            int payload = length - Frames.MORE_HEADER_BYTES;
            if (discardBytes > 0) {
                if (payload > discardBytes) {
                    protocolError = "more payload than its message header announced";
                    return Action.ABORT;
                }
                discardBytes -= payload;
                return Action.CONTINUE;
            }
            return deliver(queue.first(), buffer, offset + Frames.MORE_HEADER_BYTES, payload);
        }
        if (kind != Frames.KIND_FIRST) {
            protocolError = "a frame of unknown kind 0x" + Integer.toHexString(kind);
            return Action.ABORT;
        }
        if (length < Frames.FIRST_HEADER_BYTES) {
            protocolError = "a first frame of " + length + " bytes";
            return Action.ABORT;
        }
        if (queue.size() == 0) {
            // No receive posted: leave the message in the log; the sender's window is the only buffer.
            return Action.ABORT;
        }
        long tag = buffer.getLong(offset + 8, ByteOrder.LITTLE_ENDIAN);
        long messageBytes = buffer.getLong(offset + 16, ByteOrder.LITTLE_ENDIAN);
        int payload = length - Frames.FIRST_HEADER_BYTES;
        if (messageBytes < 0 || messageBytes > Frames.MAX_MESSAGE_BYTES || payload > messageBytes) {
            protocolError = "a message header with impossible length " + messageBytes + " (frame payload " + payload
                    + ")";
            return Action.ABORT;
        }
        AeronRequest request = queue.first();
        if (tag != request.tag()) {
            reject(request, NetException.tagMismatch(request.tag(), tag), messageBytes - payload);
            return Action.CONTINUE;
        }
        if (messageBytes > request.sizeBytes()) {
            reject(request, new NetException(NetException.Reason.TRUNCATED, "message of " + messageBytes
                    + " bytes does not fit the receive's capacity of " + request.sizeBytes() + " bytes on "
                    + description), messageBytes - payload);
            return Action.CONTINUE;
        }
        request.started = true;
        request.messageBytes = messageBytes;
        return deliver(request, buffer, offset + Frames.FIRST_HEADER_BYTES, payload);
    }

    private Action deliver(AeronRequest request, DirectBuffer buffer, int at, int payload) {
        if (payload > request.messageBytes - request.movedBytes) {
            protocolError = "more payload than its message header announced";
            return Action.ABORT;
        }
        if (payload > 0) {
            MemorySegment.copy(LogMemory.EVERYTHING, LogMemory.address(buffer, at), request.segment(),
                    request.offset() + request.movedBytes, payload);
            request.movedBytes += payload;
        }
        if (request.movedBytes == request.messageBytes) {
            queue.pop();
            request.complete(request.messageBytes);
        }
        return Action.CONTINUE;
    }

    private void reject(AeronRequest request, NetException failure, long rest) {
        queue.pop();
        request.fail(failure);
        discardBytes = rest;
    }

    @Override
    protected final void pendingFailed() {
        discardBytes = 0;
    }

    @Override
    final void closeResources() {
        // The stream id belongs to the sending process, which releases it.
        subscription.close();
    }
}
