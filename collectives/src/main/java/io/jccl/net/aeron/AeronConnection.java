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
 * <p>Peer death is the {@link Peer}'s to notice: {@link #checkLiveness(boolean)} asks it when a test made no
 * progress.
 */
public abstract class AeronConnection extends PooledConnection<AeronRequest> {
    /** The peer's rank, or -1 where the sending side does not know it. */
    protected final int peerRank;
    private final Peer peer;
    /** The transport's resources, which track the connection until it closes. */
    private final Resources resources;
    /** Made once: a method reference built per check allocates wherever escape analysis gives up. */
    private final Breaker breaker = this::breakConnection;

    /** The process at the other end, and how its death is noticed beyond what Aeron notices itself. */
    public interface Peer {
        /**
         * Called when a test made no progress: breaks the connection (through {@code breaker}) if the peer, or what
         * the connection depends on, is gone. Implementations rate-limit their own checks.
         *
         * @param sender      whether this is the sending end, stalled on the log's window
         * @param description the connection, for messages
         */
        void check(boolean sender, String description, Breaker breaker);

        /** @return the peer, for messages: its rank where known and whatever else identifies it */
        String name();

        /**
         * @param name the peer, for messages
         * @return a peer whose death Aeron notices itself (a silent image or publication times out): no checks
         */
        static Peer watchedByAeron(String name) {
            return new Peer() {
                @Override
                public void check(boolean sender, String description, Breaker breaker) {
                }

                @Override
                public String name() {
                    return name;
                }
            };
        }
    }

    /** What a {@link Peer} does with a verdict: the connection's {@link #breakConnection}. */
    public interface Breaker {
        void breakConnection(NetException.Reason reason, String message);
    }

    /**
     * @param transportName the transport's name, for messages
     * @param description   names both ends and the stream, for messages
     * @param peerRank      the peer's rank, or -1 where unknown
     * @param peer          the peer and how its death is noticed
     * @param resources     the transport's resources, where the connection is registered until it closes
     */
    protected AeronConnection(String transportName, String description, int peerRank, Peer peer,
                              Resources resources) {
        super(transportName, Frames.MAX_MESSAGE_BYTES, description, AeronRequest::new);
        this.peerRank = peerRank;
        this.peer = peer;
        this.resources = resources;
    }

    /** Releases the Aeron resources; called once, by {@link #close()}. */
    abstract void closeResources();

    /** Asks the peer whether it is gone; called when a test made no progress. */
    final void checkLiveness(boolean sender) {
        peer.check(sender, description, breaker);
    }

    /** @return the peer, for messages */
    protected final String peerName() {
        return peer.name();
    }

    @Override
    public final void close() {
        if (!markClosed()) {
            return;
        }
        try {
            closeResources();
        } finally {
            resources.forget(this);
        }
    }
}
