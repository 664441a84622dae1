package io.jccl.net.shm;

import io.jccl.net.NetException;
import io.jccl.net.PostArgs;
import java.lang.foreign.MemorySegment;

/**
 * What both ends of an shm connection share: the request pool and FIFO, the peer's liveness, and
 * the rules for breaking and closing.
 *
 * <p>Progress is caller-driven: the log is read or written only inside {@link ShmRequest#test()} (and an eager
 * attempt when a send is posted to an idle connection), on the thread that drives the connection.
 * {@link #close()} may come from another thread; the driving thread fails pending requests with
 * {@link NetException.Reason#CLOSED} the next time it tests one.
 *
 * <p>Peer death: when a test makes no progress, the peer process (and, for a sender, the driver's host process)
 * is looked up at most every {@link ShmDriver#LIVENESS_CHECK_INTERVAL_NS}; a dead one breaks the connection with
 * {@link NetException.Reason#PEER_CLOSED} naming the peer. {@link ProcessHandle#isAlive()} also compares the
 * process start time, so a recycled pid does not pass for the peer.
 */
abstract sealed class ShmConnection implements AutoCloseable permits ShmSendConnection, ShmRecvConnection {
    /** Requests one connection accepts before posting returns null. */
    static final int MAX_INFLIGHT_REQUESTS = 64;

    final RequestRing queue;
    final String description;
    final ShmTransport transport;
    final int peerRank;
    private final long peerPid;
    private final ProcessHandle peer;
    private long lastLivenessCheckNs = System.nanoTime();

    volatile boolean closed;
    /** Why the connection broke, or null while it works; only the driving thread writes it. */
    NetException.Reason brokenReason;
    String brokenMessage;

    ShmConnection(ShmTransport transport, String description, int peerRank, long peerPid) {
        this.transport = transport;
        this.description = description;
        this.peerRank = peerRank;
        this.peerPid = peerPid;
        this.peer = ProcessHandle.of(peerPid).orElse(null);
        this.queue = new RequestRing(this, MAX_INFLIGHT_REQUESTS);
    }

    /** Moves data for the pending requests as far as the log allows, without blocking. */
    abstract void progress();

    /** Releases the Aeron resources; called once, by {@link #close()}. */
    abstract void closeResources();

    final void release(ShmRequest request) {
        queue.release(request);
    }

    /**
     * Checks the connection and the common arguments of a post, and takes a request object.
     *
     * @return the request, already started, or null when the in-flight limit is reached
     */
    final ShmRequest post(MemorySegment buffer, long offset, long sizeBytes, long tag) {
        PostArgs.check(buffer, offset, sizeBytes, Wire.MAX_MESSAGE_BYTES, "shm");
        if (closed) {
            throw new NetException(NetException.Reason.CLOSED, description + " is closed");
        }
        if (brokenReason != null) {
            throw new NetException(brokenReason, brokenMessage);
        }
        ShmRequest request = queue.acquire();
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

    /**
     * Called when a test made no progress: breaks the connection if the peer process is gone.
     *
     * @param watchDriver whether the driver's host must be alive for progress (senders need it for their window)
     */
    final void checkLiveness(boolean watchDriver) {
        long now = System.nanoTime();
        if (now - lastLivenessCheckNs < ShmDriver.LIVENESS_CHECK_INTERVAL_NS) {
            return;
        }
        lastLivenessCheckNs = now;
        if (peer == null || !peer.isAlive()) {
            breakConnection(NetException.Reason.PEER_CLOSED, description + " failed: " + peerName() + " is gone");
        } else if (watchDriver && !transport.driver().ownerAlive(now)) {
            breakConnection(NetException.Reason.IO_ERROR, description + " failed: the shm media driver's process"
                    + " (pid " + transport.driver().ownerPid() + ", " + transport.driver().directory() + ") is gone");
        }
    }

    /** @return the peer for messages: its rank where known, and its pid */
    final String peerName() {
        return (peerRank >= 0 ? "rank " + peerRank : "the listening process") + " (pid " + peerPid + " on this host)";
    }

    /** Marks the connection broken and fails every pending request. */
    final void breakConnection(NetException.Reason reason, String message) {
        if (brokenReason == null) {
            brokenReason = reason;
            brokenMessage = message;
        }
        failPending(reason, message);
    }

    private void failPending(NetException.Reason reason, String message) {
        while (queue.size() > 0) {
            ShmRequest request = queue.first();
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
            transport.forget(this);
        }
    }

    @Override
    public final String toString() {
        return description;
    }
}
