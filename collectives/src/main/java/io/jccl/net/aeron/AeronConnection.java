package io.jccl.net.aeron;

import io.jccl.net.NetException;
import io.jccl.net.PooledConnection;

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
public abstract class AeronConnection extends PooledConnection<AeronRequest> {
    /** The peer's rank, or -1 where the sending side does not know it. */
    protected final int peerRank;

    /**
     * @param transportName the transport's name, for messages
     * @param description   names both ends and the stream, for messages
     * @param peerRank      the peer's rank, or -1 where unknown
     */
    protected AeronConnection(String transportName, String description, int peerRank) {
        super(transportName, Frames.MAX_MESSAGE_BYTES, description, AeronRequest::new);
        this.peerRank = peerRank;
    }

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

    @Override
    public final void close() {
        if (!markClosed()) {
            return;
        }
        try {
            closeResources();
        } finally {
            onClosed();
        }
    }
}
