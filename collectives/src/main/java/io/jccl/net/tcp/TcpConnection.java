package io.jccl.net.tcp;

import io.jccl.net.NetException;
import io.jccl.net.PostArgs;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * What both ends of a TCP connection share: the non-blocking channel, the request pool and FIFO, the staging
 * buffer, and the rules for breaking and closing.
 *
 * <p>Progress is caller-driven: I/O happens only inside {@link TcpRequest#test()} (and an eager attempt when a
 * send is posted to an idle connection), on the thread that drives the connection. {@link #close()} may come
 * from another thread; it only sets a flag and closes the channel, and the driving thread fails the pending
 * requests with {@link NetException.Reason#CLOSED} the next time it tests one.
 */
abstract sealed class TcpConnection implements AutoCloseable permits TcpSendConnection, TcpRecvConnection {
    /** Requests one connection accepts before posting returns null. */
    static final int MAX_INFLIGHT_REQUESTS = 64;
    /** Size of the per-connection staging buffer for small messages, headers and heap segments. */
    static final int STAGING_BYTES = 256 << 10;
    /**
     * When at least this much of a native payload is left beyond what the staging buffer holds, the rest goes
     * straight between the segment and the socket.
     */
    static final int DIRECT_MIN_BYTES = 32 << 10;

    final SocketChannel channel;
    final RequestQueue queue;
    /** Direct buffer for staging; {@link #stagingSegment} views all of it. */
    final ByteBuffer staging;
    final MemorySegment stagingSegment;
    final SegmentViews views = new SegmentViews();
    final String description;
    private final TcpNetTransport transport;

    private volatile boolean closed;
    /** Why the connection broke, or null while it works; only the driving thread writes it. */
    private NetException.Reason brokenReason;
    private String brokenMessage;

    TcpConnection(SocketChannel channel, String description, TcpNetTransport transport) {
        this.channel = channel;
        this.description = description;
        this.transport = transport;
        this.queue = new RequestQueue(this, MAX_INFLIGHT_REQUESTS);
        this.staging = ByteBuffer.allocateDirect(STAGING_BYTES);
        this.stagingSegment = MemorySegment.ofBuffer(staging);
    }

    /** Moves data for the pending requests as far as the socket allows, without blocking. */
    abstract void progress();

    /** Returns a request whose outcome {@link TcpRequest#test()} has reported. */
    final void release(TcpRequest request) {
        queue.release(request);
    }

    /**
     * Checks the connection and the common arguments of a post, and takes a request object.
     *
     * @return the request, already started, or null when the in-flight limit is reached
     */
    final TcpRequest post(MemorySegment buffer, long offset, long sizeBytes, long tag) {
        PostArgs.check(buffer, offset, sizeBytes, Wire.MAX_MESSAGE_BYTES, "tcp");
        if (closed) {
            throw new NetException(NetException.Reason.CLOSED, description + " is closed");
        }
        if (brokenReason != null) {
            throw new NetException(brokenReason, brokenMessage);
        }
        TcpRequest request = queue.acquire();
        if (request == null) {
            return null;
        }
        request.start(buffer, offset, sizeBytes, tag);
        queue.enqueue(request);
        return request;
    }

    /**
     * Called first by {@link #progress()}.
     *
     * @return true when the connection can make progress; false when it is closed or broken (the pending
     *         requests have then been failed)
     */
    final boolean usable() {
        if (closed) {
            if (queue.size() > 0) {
                failPending(NetException.Reason.CLOSED, description + " was closed while the request was pending",
                        null);
            }
            return false;
        }
        return brokenReason == null;
    }

    /** Handles an I/O failure of the channel: a local close, or the peer closing or vanishing. */
    final void ioFailed(IOException e) {
        if (closed) {
            usable();
        } else {
            breakConnection(NetException.Reason.PEER_CLOSED, description + " failed: the peer closed the connection or"
                    + " went away (" + e + ")", e);
        }
    }

    /** Marks the connection broken, fails every pending request and releases the socket. */
    final void breakConnection(NetException.Reason reason, String message, Throwable cause) {
        brokenReason = reason;
        brokenMessage = message;
        failPending(reason, message, cause);
        closeChannel();
    }

    private void failPending(NetException.Reason reason, String message, Throwable cause) {
        while (queue.size() > 0) {
            TcpRequest request = queue.get(0);
            queue.pop();
            request.fail(new NetException(reason, message, cause));
        }
        views.clear();
        pendingFailed();
    }

    /** Lets the subclass drop per-message state once every pending request has failed. */
    abstract void pendingFailed();

    private void closeChannel() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing useful to do: the connection is going away anyway
        }
    }

    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeChannel();
        transport.forget(this);
    }

    @Override
    public final String toString() {
        return description;
    }
}
