package io.jccl.net.tcp;

import io.jccl.net.NetException;
import io.jccl.net.PooledConnection;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * What both ends of a TCP connection share: its sockets (one or more, see {@link TcpOptions}), the request pool
 * and FIFO, and the rules for breaking and closing.
 *
 * <p>Progress is caller-driven: I/O happens only inside {@link TcpRequest#test()} (and an eager attempt when a
 * send is posted to an idle connection), on the thread that drives the connection. {@link #close()} may come
 * from another thread; it only sets a flag and closes the sockets, and the driving thread fails the pending
 * requests with {@link NetException.Reason#CLOSED} the next time it tests one.
 */
abstract sealed class TcpConnection extends PooledConnection<TcpRequest> permits TcpSendConnection, TcpRecvConnection {
    /**
     * Size of socket 0's staging buffer, for headers, small messages and heap payloads: large enough that a burst
     * of small messages leaves in one system call.
     */
    static final int STAGING_BYTES = 256 << 10;
    /**
     * Size of the staging buffer of each further socket: those carry only stripes of large messages, whose native
     * payloads bypass staging; a smaller buffer keeps a 16-socket connection's staging near 1 MiB
     * (256 KiB + 15 × 64 KiB) per direction.
     */
    static final int STRIPE_STAGING_BYTES = 64 << 10;
    /**
     * When at least this much of a native payload is left beyond what the staging buffer holds, the rest goes
     * straight between the segment and the socket.
     */
    static final int DIRECT_MIN_BYTES = 32 << 10;
    /**
     * A native payload (or stripe) longer than this is received without a copy: its header is read alone, and the
     * payload straight into the receive's memory. A shorter one is read with its header into the staging buffer,
     * one system call for both, and copied out. The sending side keeps copying the start of a long payload into
     * its staging buffer behind the header: writing the header alone cost the kernel more, in a 2-rank all-reduce,
     * than that copy saves (docs/performance.md, "TCP transport: multi-socket").
     */
    static final int COPY_MAX_BYTES = 64 << 10;

    /** The sockets, index order; a message's stripe {@code i} travels on socket {@code i}. */
    final SocketChannel[] channels;
    private final TcpNetTransport transport;
    /** How the sending side lays out the sockets: which of them carry this connection's bulk payloads. */
    final SocketLayout layout;

    /** The sockets' other user (a connection the other way between the same ranks), or null: sockets of its own. */
    private volatile ChannelShare share;

    TcpConnection(SocketChannel[] channels, String description, TcpNetTransport transport, SocketLayout layout) {
        super("tcp", Wire.MAX_MESSAGE_BYTES, description, () -> new TcpRequest(channels.length));
        this.channels = channels.clone();
        this.transport = transport;
        this.layout = layout;
    }

    /** @return the number of sockets (tests) */
    final int socketCount() {
        return channels.length;
    }

    /** @return the staging buffer size of socket {@code index} */
    static int stagingBytes(int index) {
        return index == 0 ? STAGING_BYTES : STRIPE_STAGING_BYTES;
    }

    /**
     * @param socket a socket index
     * @return the readiness ({@link SelectionKey#OP_READ}, {@link SelectionKey#OP_WRITE} or 0) that would let
     *         {@link #progress()} move data on that socket now that it moved all it could
     */
    abstract int wantedOps(int socket);

    /** This connection's keys in the transport's selector; made by the first {@link #watch}. */
    private SocketInterest interest;

    /**
     * Registers the sockets with {@code selector} for what {@link #progress()} waits for; the thread about to sleep
     * in {@link TcpNetTransport#awaitProgress} calls it. Another thread may drive the connection meanwhile: the state
     * read here may be stale, which costs at most a spurious wake-up or a sleep until the driver's
     * {@link TcpNetTransport#wakeUp()} or the timeout; only this method touches the keys.
     */
    final void watch(Selector selector) {
        if (!watchable()) {
            return;
        }
        ChannelShare s = share;
        if (s != null) {
            s.watch(selector);
            return;
        }
        if (interest == null) {
            interest = new SocketInterest(channels);
        }
        for (int i = 0; i < channels.length; i++) {
            if (!interest.set(selector, i, wantedOps(i))) {
                return;   // closed meanwhile: the next progress() reports it
            }
        }
    }

    /** @return whether {@link #watch} registers this connection's interest: neither closed nor broken */
    final boolean watchable() {
        return !isClosed() && !isBroken();
    }

    /** Makes this connection one of the two users of its sockets ({@link ChannelShare#attach}). */
    final void share(ChannelShare s) {
        share = s;
    }

    /** @return the share of this connection's sockets, or null */
    final ChannelShare share() {
        return share;
    }

    /** Handles an I/O failure of a socket: a local close, or the peer closing or vanishing. */
    final void ioFailed(IOException e) {
        if (isClosed()) {
            usable();
        } else {
            breakConnection(NetException.Reason.PEER_CLOSED, description + " failed: the peer closed the connection or"
                    + " went away (" + e + ")", e);
        }
    }

    /** A broken connection releases its sockets. */
    @Override
    protected final void onBroken(NetException.Reason reason) {
        ChannelShare s = share;
        if (s != null && reason != NetException.Reason.PEER_CLOSED) {
            s.closeAll();   // a protocol or I/O error: the stream cannot be trusted either way
        } else {
            closeChannels();   // the peer ended this direction; a shared socket's other direction goes on
        }
    }

    private void closeChannels() {
        ChannelShare s = share;
        if (s != null) {
            s.release(this);
            return;
        }
        Quietly.closeAll(channels);
    }

    @Override
    public final void close() {
        if (!markClosed()) {
            return;
        }
        closeChannels();
        transport.forget(this);
    }
}
