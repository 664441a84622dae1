package io.jccl.net.tcp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * One socket of a {@link TcpRecvConnection}, with the stripes it still has to read: a FIFO ring filled by
 * socket 0 as it matches message headers to receives. Each entry names where its stripe goes (a receive's
 * memory, or nowhere when the message was rejected and its bytes are drained), so this socket reads its stripes
 * in order without waiting for the others.
 *
 * <p>It reads into its staging buffer, which may then hold the headers and payloads of several short messages,
 * and copies out; the rest of a native destination of at least {@value TcpConnection#DIRECT_MIN_BYTES} bytes is
 * read straight into it, the read bounded to the stripe. The header in front of a native stripe that
 * {@link #goesDirect goes straight} to its receive is read alone, so that none of its payload lands in the staging
 * buffer to be copied.
 */
final class RecvSocket extends StripeSocket {
    /** Stripes one socket may have queued: the in-flight receives plus as many rejected messages to drain. */
    static final int RING_CAPACITY = 2 * TcpConnection.MAX_INFLIGHT_REQUESTS;

    private final TcpRequest[] ringReceive = new TcpRequest[RING_CAPACITY];
    private final long[] ringOffset = new long[RING_CAPACITY];
    private final long[] ringBytes = new long[RING_CAPACITY];
    private final long[] ringTag = new long[RING_CAPACITY];
    private int ringHead;
    private int ringCount;
    /** Whether the stripe header of the oldest entry has been read (sockets other than 0). */
    private boolean stripeHeaderRead;
    /** Payload bytes of the oldest entry's stripe read (or skipped) so far. */
    private long stripeMoved;

    /** Bytes read since the connection opened; the receiving connection watches it for progress. */
    long readBytes;
    /** Whether the peer's end of stream (or a reset) was seen. */
    private boolean ended;
    /** The reset, if the stream ended with one. */
    IOException failure;
    /** Whether this socket needs bytes that will never come: its stream ended first. */
    boolean dry;

    RecvSocket(int index, SocketChannel channel) {
        super(index, channel);   // staged: bytes read and not yet copied out
    }

    /** @return the number of stripes queued */
    int queued() {
        return ringCount;
    }

    /**
     * @param matching whether a receive waits for its message header on this socket (socket 0 only)
     * @return whether this socket's progress waits for bytes from the kernel: a stripe is queued, or a header is
     *         due; never once the stream ended (the end is already seen, so readiness would only repeat it)
     */
    boolean wantsRead(boolean matching) {
        return !ended && (ringCount > 0 || matching);
    }

    /** @return true when no further stripe can be queued */
    boolean full() {
        return ringCount == RING_CAPACITY;
    }

    /**
     * Queues a stripe to read.
     *
     * @param receive     the receive whose memory takes the stripe, or null to drain it
     * @param offset      where the stripe goes in the receive's segment
     * @param stripeBytes the stripe's length
     * @param tag         the message's tag, which the stripe header repeats
     */
    void push(TcpRequest receive, long offset, long stripeBytes, long tag) {
        int slot = (ringHead + ringCount) % RING_CAPACITY;
        ringReceive[slot] = receive;
        ringOffset[slot] = offset;
        ringBytes[slot] = stripeBytes;
        ringTag[slot] = tag;
        ringCount++;
    }

    /**
     * Reads the queued stripes as far as the socket allows, without blocking, and clears this socket's bit in each
     * receive whose stripe is all read.
     *
     * @param connection names the connection, for protocol errors
     * @throws io.jccl.net.NetException with {@code PROTOCOL_ERROR} when a stripe header is not the one due
     */
    void drain(String connection) {
        while (ringCount > 0) {
            int slot = ringHead;
            if (index > 0 && !stripeHeaderRead) {
                if (!fill(Wire.HEADER_BYTES, goesDirect(ringReceive[slot], ringBytes[slot]))) {
                    return;
                }
                Wire.checkStripeHeader(staging, staging.position(), index, ringTag[slot], ringBytes[slot], connection);
                staging.position(staging.position() + Wire.HEADER_BYTES);
                stripeHeaderRead = true;
            }
            TcpRequest receive = ringReceive[slot];
            if (!(receive == null ? skip(ringBytes[slot]) : receive(receive, ringOffset[slot], ringBytes[slot]))) {
                return;
            }
            ringReceive[slot] = null;
            ringHead = (ringHead + 1) % RING_CAPACITY;
            ringCount--;
            stripeHeaderRead = false;
            stripeMoved = 0;
            if (receive != null) {
                receive.pendingSockets &= ~(1 << index);
            }
        }
    }

    /**
     * Makes the staging buffer hold at least {@code bytes} unread bytes.
     *
     * @param exactly read no further than those bytes: what follows is a payload that {@link #goesDirect goes
     *                straight} into a receive's memory, and reading its start into the staging buffer would only
     *                add a copy
     * @return false when they are not here yet, or never will be ({@link #dry} is then set)
     */
    boolean fill(int bytes, boolean exactly) {
        while (staging.remaining() < bytes) {
            if (ended) {
                dry = true;
                return false;
            }
            staging.compact();
            if (exactly) {
                staging.limit(bytes);
            }
            int read = read(staging);
            staging.flip();
            if (read == 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * @return true when a stripe of {@code stripeBytes} for {@code receive}, native, is longer than
     *         {@link TcpConnection#COPY_MAX_BYTES} or than the staging buffer holds with its header, and will be read
     *         straight into the receive's memory; a shorter one is cheaper read with its header in one system call
     *         and copied out
     */
    boolean goesDirect(TcpRequest receive, long stripeBytes) {
        return receive != null && stripeBytes >= TcpConnection.DIRECT_MIN_BYTES
                && (stripeBytes > TcpConnection.COPY_MAX_BYTES || stripeBytes > staging.capacity() - Wire.HEADER_BYTES)
                && receive.segment().isNative();
    }

    /** @return true when the whole stripe is in the receive's memory */
    private boolean receive(TcpRequest receive, long offset, long stripeBytes) {
        while (stripeMoved < stripeBytes) {
            long remaining = stripeBytes - stripeMoved;
            if (staging.hasRemaining()) {
                int copied = (int) Math.min(remaining, staging.remaining());
                MemorySegment.copy(stagingSegment, staging.position(), receive.segment(), offset + stripeMoved, copied);
                staging.position(staging.position() + copied);
                stripeMoved += copied;
                continue;
            }
            int read;
            if (receive.segment().isNative() && remaining >= TcpConnection.DIRECT_MIN_BYTES) {
                read = read(views.view(receive.segment(), offset + stripeMoved, remaining));
                if (read > 0) {
                    stripeMoved += read;
                }
            } else {
                read = refill();
            }
            if (read <= 0) {
                dry = read < 0;
                return false;
            }
        }
        return true;
    }

    /** @return true when the rejected stripe has been skipped */
    private boolean skip(long stripeBytes) {
        while (stripeMoved < stripeBytes) {
            if (staging.hasRemaining()) {
                int skipped = (int) Math.min(stripeBytes - stripeMoved, staging.remaining());
                staging.position(staging.position() + skipped);
                stripeMoved += skipped;
                continue;
            }
            int read = refill();
            if (read <= 0) {
                dry = read < 0;
                return false;
            }
        }
        return true;
    }

    /** Reads into the empty staging buffer. */
    private int refill() {
        staging.clear();
        int read = read(staging);
        staging.flip();
        return read;
    }

    /** @return bytes read, or -1 once the stream has ended (by end of stream or a reset, which is kept) */
    private int read(ByteBuffer into) {
        if (ended) {
            return -1;
        }
        int read;
        try {
            read = channel.read(into);
        } catch (IOException e) {
            failure = e;
            read = -1;
        }
        if (read < 0) {
            ended = true;
        } else {
            readBytes += read;
        }
        return read;
    }

    /** Drops the queued stripes and unread bytes once every pending receive has failed. */
    void reset() {
        for (int i = 0; i < RING_CAPACITY; i++) {
            ringReceive[i] = null;
        }
        ringHead = 0;
        ringCount = 0;
        stripeHeaderRead = false;
        stripeMoved = 0;
        staging.limit(0);
        views.clear();
    }
}
