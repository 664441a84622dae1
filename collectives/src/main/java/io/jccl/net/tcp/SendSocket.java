package io.jccl.net.tcp;

import io.jccl.net.RequestFifo;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * One socket of a {@link TcpSendConnection}: it writes its part of each pending send (socket 0 the header, and
 * the first stripe unless the payload goes on bulk sockets; other sockets a stripe), in posting order, and skips
 * the sends that have nothing on it.
 *
 * <p>It copies the next stripes' headers and payloads into its staging buffer until the buffer is full and writes
 * it; several short messages thus leave in one write. When a native payload has at least
 * {@value TcpConnection#DIRECT_MIN_BYTES} bytes left once the staging buffer is full, the rest is written straight
 * from its segment, without a copy. Heap payloads always go through the staging buffer.
 *
 * <p>The staging buffer and a payload are written by separate calls rather than one gathering write: the JDK
 * allocates per buffer when a gathering write includes a segment-backed buffer, and the data path must not.
 *
 * <p>Positions in the send FIFO are sequence numbers ({@link io.jccl.net.RequestFifo}), so each socket keeps its own place
 * while the oldest sends complete.
 */
final class SendSocket extends StripeSocket {
    /** A native payload being written straight from its segment, or null. */
    private ByteBuffer directPayload;
    /** The send whose stripe is staged next. */
    private long stageSeq;
    /** Whether the header of {@link #stageSeq}'s stripe is staged. */
    private boolean headerStaged;
    /** Payload bytes of {@link #stageSeq}'s stripe staged (or handed to {@link #directPayload}) so far. */
    private long stripeMoved;
    /** The oldest send whose stripe on this socket the kernel has not all accepted yet. */
    private long completeSeq;
    /** Bytes handed to the staging buffer or to {@link #directPayload} since the connection opened. */
    private long stagedBytes;
    /** Bytes the kernel accepted since the connection opened. */
    private long writtenBytes;

    SendSocket(int index, SocketChannel channel) {
        super(index, channel);   // staged: bytes copied in and not yet written
    }

    /** @return whether bytes wait for room in the kernel's socket buffer (staged, or a payload going direct) */
    boolean wantsWrite() {
        return staging.hasRemaining() || directPayload != null;
    }

    /**
     * Writes as much of the pending sends' stripes as the socket takes without blocking, and clears this socket's
     * bit in each send whose stripe is all written.
     */
    void progress(RequestFifo<TcpRequest> queue) throws IOException {
        // Sends popped since the last call had their stripe here written, or none here.
        stageSeq = Math.max(stageSeq, queue.headSeq());
        completeSeq = Math.max(completeSeq, queue.headSeq());
        while (true) {
            if (staging.hasRemaining()) {
                writtenBytes += channel.write(staging);
                completeWritten(queue);
                if (staging.hasRemaining()) {
                    return;
                }
            }
            if (directPayload != null) {
                writtenBytes += channel.write(directPayload);
                completeWritten(queue);
                if (directPayload.hasRemaining()) {
                    return;
                }
                directPayload = null;
            }
            if (!stage(queue)) {
                completeWritten(queue);
                return;
            }
        }
    }

    /** Clears this socket's bit in the oldest sends whose stripe here is all written. */
    private void completeWritten(RequestFifo<TcpRequest> queue) {
        while (completeSeq < queue.endSeq()) {
            TcpRequest send = queue.bySeq(completeSeq);
            if (send.onSocket(index)) {
                if (completeSeq >= stageSeq || send.stripeEnd[index] > writtenBytes) {
                    return;
                }
                send.pendingSockets &= ~(1 << index);
            }
            completeSeq++;
        }
    }

    /**
     * Fills the empty staging buffer with the next stripes' bytes, and sets {@link #directPayload} when the rest
     * of a native payload goes out directly after it.
     *
     * @return false when there was nothing left to stage
     */
    private boolean stage(RequestFifo<TcpRequest> queue) {
        if (stageSeq == queue.endSeq()) {
            return false;
        }
        staging.clear();
        while (stageSeq < queue.endSeq()) {
            TcpRequest send = queue.bySeq(stageSeq);
            if (!send.onSocket(index)) {
                stageSeq++;
                continue;
            }
            long from = send.stripeStart(send.sizeBytes(), index);
            long length = send.stripeStart(send.sizeBytes(), index + 1) - from;
            if (!headerStaged) {
                if (staging.remaining() < Wire.HEADER_BYTES) {
                    break;
                }
                if (index == 0) {
                    Wire.putHeader(staging, send.tag(), send.sizeBytes(), send.stripes, send.firstSocket > 0);
                } else {
                    Wire.putStripeHeader(staging, index, send.tag(), length);
                }
                stagedBytes += Wire.HEADER_BYTES;
                headerStaged = true;
            }
            long remaining = length - stripeMoved;
            if (remaining > 0) {
                int copied = (int) Math.min(remaining, staging.remaining());
                MemorySegment.copy(send.segment(), send.offset() + from + stripeMoved, stagingSegment, staging.position(),
                        copied);
                staging.position(staging.position() + copied);
                stripeMoved += copied;
                stagedBytes += copied;
                remaining -= copied;
                if (remaining > 0) {
                    // The staging buffer is full.
                    if (send.segment().isNative() && remaining >= TcpConnection.DIRECT_MIN_BYTES) {
                        directPayload = views.view(send.segment(), send.offset() + from + stripeMoved, remaining);
                        int direct = directPayload.remaining();
                        stripeMoved += direct;
                        stagedBytes += direct;
                        if (stripeMoved == length) {
                            finishStripe(send);
                        }
                    }
                    break;
                }
            }
            finishStripe(send);
        }
        staging.flip();
        return true;
    }

    private void finishStripe(TcpRequest send) {
        send.stripeEnd[index] = stagedBytes;
        stageSeq++;
        headerStaged = false;
        stripeMoved = 0;
    }

    /** Drops the per-message state once every pending send has failed. */
    void reset(long nextSeq) {
        stageSeq = nextSeq;
        completeSeq = nextSeq;
        headerStaged = false;
        stripeMoved = 0;
        directPayload = null;
        staging.limit(0);
        views.clear();
    }
}
