package io.jccl.net.aeron;

import io.jccl.net.NetException;
import io.jccl.net.PostArgs;
import java.lang.foreign.MemorySegment;

/**
 * What both ends of a connection over an Aeron publication share: the request pool and FIFO, and the rules for
 * breaking and closing.
 *
 * <p>Progress is caller-driven: the log is read or written only inside {@link AeronRequest#test()} (and an eager
 * attempt when a send is posted to an idle connection), on the thread that drives the connection.
 * {@link #close()} may come from another thread; the driving thread fails pending requests with
 * {@link NetException.Reason#CLOSED} the next time it tests one.
 *
 * <p>Peer death is the subclass's: {@link #checkLiveness(boolean)} runs when a test made no progress.
 */
public abstract class AeronConnection implements AutoCloseable {
    /** Requests one connection accepts before posting returns null. */
    public static final int MAX_INFLIGHT_REQUESTS = 64;

    final RequestRing queue;
    /** For messages: names the transport, both ends and the stream. */
    protected final String description;
    /** The peer's rank, or -1 where the sending side does not know it. */
    protected final int peerRank;
    private final String transportName;

    volatile boolean closed;
    /** Why the connection broke, or null while it works; only the driving thread writes it. */
    NetException.Reason brokenReason;
    String brokenMessage;

    /**
     * @param transportName the transport's name, for messages
     * @param description   names both ends and the stream, for messages
     * @param peerRank      the peer's rank, or -1 where unknown
     */
    protected AeronConnection(String transportName, String description, int peerRank) {
        this.transportName = transportName;
        this.description = description;
        this.peerRank = peerRank;
        this.queue = new RequestRing(this, MAX_INFLIGHT_REQUESTS);
    }

    /** Moves data for the pending requests as far as the log allows, without blocking. */
    abstract void progress();

    /** Releases the Aeron resources; called once, by {@link #close()}. */
    abstract void closeResources();

    /** Called once after {@link #close()} released the resources: the transport stops tracking the connection. */
    protected abstract void onClosed();

    /**
     * Called when a test made no progress: breaks the connection (with {@link #breakConnection}) if the peer, or
     * what the connection depends on, is gone. Implementations rate-limit their own checks.
     *
     * @param sender whether this is the sending end, stalled on the log's window
     */
    protected abstract void checkLiveness(boolean sender);

    /** @return the peer, for messages: its rank where known and whatever else identifies it */
    protected abstract String peerName();

    final void release(AeronRequest request) {
        queue.release(request);
    }

    /**
     * Checks the connection and the common arguments of a post, and takes a request object.
     *
     * @return the request, already started, or null when the in-flight limit is reached
     */
    final AeronRequest post(MemorySegment buffer, long offset, long sizeBytes, long tag) {
        PostArgs.check(buffer, offset, sizeBytes, Frames.MAX_MESSAGE_BYTES, transportName);
        if (closed) {
            throw new NetException(NetException.Reason.CLOSED, description + " is closed");
        }
        if (brokenReason != null) {
            throw new NetException(brokenReason, brokenMessage);
        }
        AeronRequest request = queue.acquire();
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
     * @return true when the connection can make progress; false when it is closed or broken (pending requests
     *         have then been failed)
     */
    final boolean usable() {
        if (closed) {
            if (queue.size() > 0) {
                failPending(NetException.Reason.CLOSED, description + " was closed while the request was pending");
            }
            return false;
        }
        return brokenReason == null;
    }

    /** Marks the connection broken and fails every pending request. */
    protected final void breakConnection(NetException.Reason reason, String message) {
        if (brokenReason == null) {
            brokenReason = reason;
            brokenMessage = message;
        }
        failPending(reason, message);
    }

    private void failPending(NetException.Reason reason, String message) {
        while (queue.size() > 0) {
            AeronRequest request = queue.first();
            queue.pop();
            request.fail(new NetException(reason, message));
        }
        pendingFailed();
    }

    /** Lets the subclass drop per-message state once every pending request has failed. */
    abstract void pendingFailed();

    @Override
    public final void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            closeResources();
        } finally {
            onClosed();
        }
    }

    @Override
    public final String toString() {
        return description;
    }
}
