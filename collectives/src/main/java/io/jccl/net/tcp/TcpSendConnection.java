package io.jccl.net.tcp;

import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetRequest;
import io.jccl.net.SendConnection;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The sending end of a TCP connection.
 *
 * <p>Pending sends form a FIFO. Progress copies the next messages' headers and payloads into the staging
 * buffer until it is full and writes it; several short messages thus leave in one write. When a native payload
 * has at least {@value TcpConnection#DIRECT_MIN_BYTES} bytes left once the staging buffer is full, the rest is
 * written straight from its segment, without a copy. Heap payloads always go through the staging buffer.
 *
 * <p>The staging buffer and a payload are written by separate calls rather than one gathering write: the JDK
 * allocates per buffer when a gathering write includes a segment-backed buffer, and the data path must not.
 *
 * <p>A send completes once its last byte is in the kernel's socket buffer; bytes already there reach the peer
 * even if this end closes afterwards.
 */
final class TcpSendConnection extends TcpConnection implements SendConnection {
    /** A native payload being written straight from its segment, or null. */
    private ByteBuffer directPayload;
    /** Index, counted from the oldest pending send, of the first send not yet fully staged. */
    private int stageIndex;
    /** Bytes handed to the staging buffer or to {@link #directPayload} since the connection opened. */
    private long stagedBytes;
    /** Bytes the kernel accepted since the connection opened. */
    private long writtenBytes;

    TcpSendConnection(SocketChannel channel, String description, TcpNetTransport transport) {
        super(channel, description, transport);
        staging.limit(0);
    }

    @Override
    public NetRequest isend(MemorySegment buffer, long offset, long sizeBytes, long tag, MemoryRegistration mr) {
        boolean wasIdle = queue.size() == 0;
        TcpRequest request = post(buffer, offset, sizeBytes, tag);
        if (request != null && wasIdle) {
            progress();
        }
        return request;
    }

    @Override
    void progress() {
        if (!usable()) {
            return;
        }
        try {
            while (true) {
                if (staging.hasRemaining()) {
                    writtenBytes += channel.write(staging);
                    completeWritten();
                    if (staging.hasRemaining()) {
                        return;
                    }
                }
                if (directPayload != null) {
                    writtenBytes += channel.write(directPayload);
                    completeWritten();
                    if (directPayload.hasRemaining()) {
                        return;
                    }
                    directPayload = null;
                }
                if (!stage()) {
                    return;
                }
            }
        } catch (IOException e) {
            ioFailed(e);
        }
    }

    /** Completes the oldest sends whose bytes are all written. */
    private void completeWritten() {
        while (queue.size() > 0) {
            TcpRequest oldest = queue.get(0);
            if (oldest.streamEnd < 0 || oldest.streamEnd > writtenBytes) {
                return;
            }
            queue.pop();
            stageIndex--;
            oldest.complete(oldest.sizeBytes);
        }
    }

    /**
     * Fills the empty staging buffer with the next messages' bytes, and sets {@link #directPayload} when the
     * rest of a native payload goes out directly after it.
     *
     * @return false when there was nothing left to stage
     */
    private boolean stage() {
        if (stageIndex == queue.size()) {
            return false;
        }
        staging.clear();
        while (stageIndex < queue.size()) {
            TcpRequest request = queue.get(stageIndex);
            if (!request.headerStaged) {
                if (staging.remaining() < Wire.HEADER_BYTES) {
                    break;
                }
                Wire.putHeader(staging, request.tag, request.sizeBytes);
                stagedBytes += Wire.HEADER_BYTES;
                request.headerStaged = true;
            }
            long remaining = request.sizeBytes - request.movedBytes;
            if (remaining > 0) {
                int copied = (int) Math.min(remaining, staging.remaining());
                MemorySegment.copy(request.segment, request.offset + request.movedBytes, stagingSegment,
                        staging.position(), copied);
                staging.position(staging.position() + copied);
                request.movedBytes += copied;
                stagedBytes += copied;
                remaining -= copied;
                if (remaining > 0) {
                    // The staging buffer is full.
                    if (request.segment.isNative() && remaining >= DIRECT_MIN_BYTES) {
                        directPayload = views.view(request.segment, request.offset + request.movedBytes, remaining);
                        int direct = directPayload.remaining();
                        request.movedBytes += direct;
                        stagedBytes += direct;
                        if (request.movedBytes == request.sizeBytes) {
                            finishStaging(request);
                        }
                    }
                    break;
                }
            }
            finishStaging(request);
        }
        staging.flip();
        return true;
    }

    private void finishStaging(TcpRequest request) {
        request.streamEnd = stagedBytes;
        stageIndex++;
    }

    @Override
    void pendingFailed() {
        stageIndex = 0;
        directPayload = null;
        staging.limit(0);
    }
}
