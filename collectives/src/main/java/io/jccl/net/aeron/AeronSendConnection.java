package io.jccl.net.aeron;

import io.aeron.Publication;
import io.aeron.logbuffer.BufferClaim;
import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.SendConnection;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.agrona.MutableDirectBuffer;

/**
 * The sending end of a connection: one publication that only this connection uses.
 *
 * <p>Pending sends form a FIFO; progress writes the oldest one's frames into the log with
 * {@link Publication#tryClaim}, copying the payload once, straight from the caller's segment into the claimed
 * frame, until the log's window (one term ahead of the receiver) is full. A send completes when its last frame is
 * committed: it then reaches the receiver even if this end closes afterwards.
 *
 * <p>Closing writes a close frame when the log has room (the receiver then fails later receives with
 * {@link NetException.Reason#PEER_CLOSED} once it read everything before it) and closes the publication. A
 * publication is thread-safe, so the close frame may come from another thread than the one driving sends; it may
 * then cut a message in half, which the receiver reports as {@code PEER_CLOSED} too.
 */
public abstract class AeronSendConnection extends AeronConnection implements SendConnection {
    private final Publication publication;
    private final int maxFrameBytes;
    private final BufferClaim claim = new BufferClaim();
    private final BufferClaim closeClaim = new BufferClaim();
    /** Why the publication may have been closed under the connection, for messages. */
    private final String publicationClosedCause;

    /**
     * @param transportName the transport's name, for messages
     * @param publication   the connection's publication, connected to the peer's subscription
     * @param peerRank      the peer's rank, or -1 where unknown
     * @param description   names both ends and the stream, for messages
     * @param peer          the receiver and how its death is noticed
     * @param resources     the transport's resources, where the connection is registered until it closes
     * @param driverDirectory the directory of the media driver the publication lives in, for messages
     */
    protected AeronSendConnection(String transportName, Publication publication, int peerRank, String description,
                                  Peer peer, Resources resources, Path driverDirectory) {
        super(transportName, description, peerRank, peer, resources);
        this.publication = publication;
        this.maxFrameBytes = publication.maxPayloadLength();
        this.publicationClosedCause = "the " + transportName + " media driver " + driverDirectory + " went away?";
    }

    /** Releases what the connection held besides its publication (after the publication closed); nothing here. */
    protected void afterPublicationClosed() {
    }

    @Override
    public final NetRequest isend(MemorySegment buffer, long offset, long sizeBytes, long tag, MemoryRegistration mr) {
        boolean wasIdle = queue.size() == 0;
        AeronRequest request = takeQueued(buffer, offset, sizeBytes, tag);
        if (request != null && wasIdle) {
            progress();
        }
        return request;
    }

    @Override
    protected final void progress() {
        if (!usable()) {
            return;
        }
        boolean progressed = false;
        boolean rotated = false;
        while (queue.size() > 0) {
            AeronRequest request = queue.first();
            int header = request.started ? Frames.MORE_HEADER_BYTES : Frames.FIRST_HEADER_BYTES;
            long remaining = request.sizeBytes() - request.movedBytes;
            int payload = (int) Math.min(remaining, maxFrameBytes - header);
            long result = publication.tryClaim(header + payload, claim);
            if (result == Publication.ADMIN_ACTION && !rotated) {
                rotated = true;   // this claim moved the log to its next term; the retry claims there
                continue;
            }
            if (result < 0) {
                if (!progressed) {
                    stalled(result);
                }
                return;
            }
            progressed = true;
            MutableDirectBuffer buffer = claim.buffer();
            int at = claim.offset();
            if (request.started) {
                buffer.putInt(at, Frames.KIND_MORE, ByteOrder.LITTLE_ENDIAN);
                buffer.putInt(at + 4, 0, ByteOrder.LITTLE_ENDIAN);
            } else {
                buffer.putInt(at, Frames.KIND_FIRST, ByteOrder.LITTLE_ENDIAN);
                buffer.putInt(at + 4, 0, ByteOrder.LITTLE_ENDIAN);
                buffer.putLong(at + 8, request.tag(), ByteOrder.LITTLE_ENDIAN);
                buffer.putLong(at + 16, request.sizeBytes(), ByteOrder.LITTLE_ENDIAN);
                request.started = true;
            }
            if (payload > 0) {
                MemorySegment.copy(request.segment(), request.offset() + request.movedBytes, LogMemory.EVERYTHING,
                        LogMemory.address(buffer, at + header), payload);
                request.movedBytes += payload;
            }
            claim.commit();
            if (request.movedBytes == request.sizeBytes()) {
                queue.pop();
                request.complete(request.sizeBytes());
            }
        }
    }

    /** Handles a failed claim: try later, or break the connection. */
    private void stalled(long result) {
        if (result == Publication.BACK_PRESSURED || result == Publication.ADMIN_ACTION) {
            checkLiveness(true);
        } else if (result == Publication.NOT_CONNECTED) {
            breakConnection(NetException.Reason.PEER_CLOSED, description + " failed: " + peerName()
                    + " closed its receiving end");
        } else if (result == Publication.CLOSED) {
            breakConnection(NetException.Reason.IO_ERROR, description + " failed: its publication was closed ("
                    + publicationClosedCause + ")");
        } else {
            breakConnection(NetException.Reason.IO_ERROR, description + " failed: the log is exhausted"
                    + " (Aeron result " + result + ")");
        }
    }

    @Override
    protected final void pendingFailed() {
    }

    @Override
    final void closeResources() {
        try {
            if (!isBroken() && publication.tryClaim(Frames.CLOSE_BYTES, closeClaim) > 0) {
                closeClaim.buffer().putInt(closeClaim.offset(), Frames.KIND_CLOSE, ByteOrder.LITTLE_ENDIAN);
                closeClaim.buffer().putInt(closeClaim.offset() + 4, 0, ByteOrder.LITTLE_ENDIAN);
                closeClaim.commit();
            }
        } catch (RuntimeException e) {
            // The publication is already unusable; the receiver notices its end of stream.
        } finally {
            try {
                publication.close();
            } finally {
                afterPublicationClosed();
            }
        }
    }
}
