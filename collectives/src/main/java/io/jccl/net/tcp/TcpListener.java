package io.jccl.net.tcp;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.net.AbstractListener;
import io.jccl.net.NetException;
import io.jccl.net.RecvConnection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * Accepts the connections of all peers on one non-blocking server socket. Every socket must send a hello frame
 * with the right magic, version and token; any other is closed and dropped with a warning, as is one that does
 * not finish its hello within the connect timeout. A connection of several sockets surfaces from
 * {@link #accept()} once all of them have said hello with the same connection id, rank and socket count, one per
 * index; a set that stays incomplete for the connect timeout, or whose hellos disagree, is dropped whole with a
 * warning saying how many sockets came.
 *
 * <p>A connection offered for both directions ({@link Wire#FLAG_OFFER}) is also recorded with the transport, whose
 * connect back to the same peer may take it ({@link TcpNetTransport#connect}). The other way round, this rank's own
 * offered connections wait here for the peer's {@link Wire#FLAG_REVERSE} hello on each socket, read from the
 * socket this rank connected; once all have come, the reverse direction surfaces from {@link #accept()} as a
 * receive connection over the same sockets ({@link ChannelShare}).
 *
 * <p>{@link #accept()} is synchronized: it is called during setup only, and {@link #close()} may come from
 * another thread.
 */
final class TcpListener extends AbstractListener {
    private static final Logger LOG = JcclLog.logger(Subsystem.NET, TcpListener.class);
    /**
     * Most accepted sockets waiting at once for their hello or for the rest of their connection's sockets; more
     * are closed (a flood, not peers).
     */
    static final int MAX_HANDSHAKES = 1024;

    private final TcpNetTransport transport;
    private final ServerSocketChannel server;
    private final byte[] token;
    private final List<Handshake> handshakes = new ArrayList<>();
    /** Connections of several sockets of which some have said hello, by connection id. */
    private final Map<Long, SocketSet> sets = new HashMap<>();
    /** Sockets waiting in {@link #sets}. */
    private int socketsInSets;
    /** This rank's offered connections, waiting for the peer to take them for the other direction. */
    private final List<ReverseWait> reverseWaits = new ArrayList<>();

    /** The sockets of one connection that have said hello so far. */
    private static final class SocketSet {
        final long connectionId;
        final int rank;
        final SocketChannel[] channels;
        final String remote;
        final long deadlineNanos;
        final int flags;
        final byte[] senderToken;
        int arrived;

        SocketSet(long connectionId, int rank, int count, String remote, long deadlineNanos, int flags,
                  byte[] senderToken) {
            this.connectionId = connectionId;
            this.rank = rank;
            this.channels = new SocketChannel[count];
            this.remote = remote;
            this.deadlineNanos = deadlineNanos;
            this.flags = flags;
            this.senderToken = senderToken;
        }
    }

    /** A send connection of this rank, offered to its peer, and the REVERSE hellos read back on its sockets. */
    private static final class ReverseWait {
        final TcpSendConnection send;
        final SocketChannel[] channels;
        final ByteBuffer[] hellos;
        final String remote;

        ReverseWait(TcpSendConnection send, SocketChannel[] channels, String remote) {
            this.send = send;
            this.channels = channels;
            this.remote = remote;
            this.hellos = new ByteBuffer[channels.length];
            for (int i = 0; i < channels.length; i++) {
                hellos[i] = ByteBuffer.allocate(Wire.HELLO_BYTES);
            }
        }
    }

    TcpListener(TcpNetTransport transport, ServerSocketChannel server, TcpHandle handle) {
        super(handle.encode(), "tcp listener " + handle.address());
        this.transport = transport;
        this.server = server;
        this.token = handle.token().bytes();
    }

    @Override
    public synchronized RecvConnection accept() {
        throwIfClosed();
        acceptSockets();
        RecvConnection reverse = pollReverseWaits();
        if (reverse != null) {
            return reverse;
        }
        long now = System.nanoTime();
        expireSets(now);
        for (Iterator<Handshake> it = handshakes.iterator(); it.hasNext(); ) {
            Handshake handshake = it.next();
            Handshake.Status status = handshake.poll(token, now);
            if (status == Handshake.Status.PENDING) {
                continue;
            }
            it.remove();
            if (status == Handshake.Status.REJECTED) {
                drop(handshake.channel(), handshake.remote(), handshake.rejection());
                continue;
            }
            if (handshake.flags() == Wire.FLAG_REVERSE) {
                drop(handshake.channel(), handshake.remote(), "a REVERSE hello on a socket it opened itself");
                continue;
            }
            if (handshake.socketCount() == 1) {
                return surface(new SocketChannel[] {handshake.channel()}, handshake.peerRank(), handshake.remote(),
                        handshake.flags(), handshake.senderToken());
            }
            SocketSet complete = join(handshake, now);
            if (complete != null) {
                return surface(complete.channels, complete.rank, complete.remote, complete.flags,
                        complete.senderToken);
            }
        }
        return null;
    }

    /** Opens the receive connection of accepted sockets and records an offer with the transport. */
    private RecvConnection surface(SocketChannel[] channels, int rank, String remote, int flags, byte[] senderToken) {
        TcpRecvConnection connection = transport.openRecv(channels, rank, remote,
                flags == Wire.FLAG_OFFER ? SocketLayout.shared(channels.length, true) : SocketLayout.ONE_WAY);
        if (flags == Wire.FLAG_OFFER) {
            transport.offered(senderToken, connection);
        }
        return connection;
    }

    /**
     * Waits for the REVERSE hellos of a send connection this rank offered to its peer (the transport calls it once
     * the connection's own hellos are written).
     */
    synchronized void expectReverse(TcpSendConnection send, SocketChannel[] channels, String remote) {
        if (!isClosed()) {
            reverseWaits.add(new ReverseWait(send, channels, remote));
        }
    }

    /**
     * Reads what came back on the offered sockets. A wait whose socket ends or fails, or whose send connection
     * closed, is given up without closing anything (the send connection owns the sockets and finds out itself); a
     * wait whose hellos are wrong is given up with a warning.
     *
     * @return the receive connection of a peer that took an offered connection, or null
     */
    private RecvConnection pollReverseWaits() {
        for (Iterator<ReverseWait> it = reverseWaits.iterator(); it.hasNext(); ) {
            ReverseWait wait = it.next();
            if (wait.send.isClosed()) {
                it.remove();
                continue;
            }
            boolean complete = true;
            try {
                for (int i = 0; i < wait.channels.length; i++) {
                    if (wait.hellos[i].hasRemaining() && wait.channels[i].read(wait.hellos[i]) < 0) {
                        throw new IOException("end of stream");
                    }
                    complete &= !wait.hellos[i].hasRemaining();
                }
            } catch (IOException e) {
                it.remove();   // the peer closed or went away: the send connection finds out on its own
                continue;
            }
            if (!complete) {
                continue;
            }
            it.remove();
            String wrong = checkReverse(wait);
            if (wrong != null) {
                LOG.warn("{}: the peer at {} answered an offered connection wrongly ({}); it stays one way",
                        description, wait.remote, wrong);
                continue;
            }
            TcpRecvConnection recv = transport.openRecv(wait.channels, Wire.helloRank(wait.hellos[0]), wait.remote,
                    SocketLayout.shared(wait.channels.length, false));
            ChannelShare share = new ChannelShare(wait.channels);
            share.attach(wait.send);
            share.attach(recv);
            return recv;
        }
        return null;
    }

    /** @return why the REVERSE hellos of a wait are wrong, or null */
    private String checkReverse(ReverseWait wait) {
        ByteBuffer first = wait.hellos[0];
        for (int i = 0; i < wait.channels.length; i++) {
            ByteBuffer hello = wait.hellos[i];
            String wrong = Wire.checkHello(hello, token);
            if (wrong != null) {
                return "socket " + i + ": " + wrong;
            }
            if (Wire.helloFlags(hello) != Wire.FLAG_REVERSE) {
                return "socket " + i + ": flags " + Wire.helloFlags(hello) + " instead of REVERSE";
            }
            if (Wire.helloSocketIndex(hello) != i || Wire.helloSocketCount(hello) != wait.channels.length
                    || Wire.helloConnectionId(hello) != Wire.helloConnectionId(first)
                    || Wire.helloRank(hello) != Wire.helloRank(first)) {
                return "socket " + i + " names socket " + Wire.helloSocketIndex(hello) + " of "
                        + Wire.helloSocketCount(hello) + " (rank " + Wire.helloRank(hello) + ")";
            }
        }
        return null;
    }

    /**
     * Adds a socket of a multi-socket connection to its set.
     *
     * @return the set once it is complete (and no longer tracked), otherwise null
     */
    private SocketSet join(Handshake handshake, long now) {
        long id = handshake.connectionId();
        SocketSet set = sets.get(id);
        if (set == null) {
            set = new SocketSet(id, handshake.peerRank(), handshake.socketCount(), handshake.remote(),
                    now + transport.connectTimeoutNanos(), handshake.flags(), handshake.senderToken());
            sets.put(id, set);
        } else if (set.rank != handshake.peerRank() || set.channels.length != handshake.socketCount()
                || set.channels[handshake.socketIndex()] != null || set.flags != handshake.flags()
                || !java.util.Arrays.equals(set.senderToken, handshake.senderToken())) {
            drop(handshake.channel(), handshake.remote(), "its hello (rank " + handshake.peerRank() + ", socket "
                    + handshake.socketIndex() + " of " + handshake.socketCount() + ") contradicts the connection it"
                    + " names (rank " + set.rank + ", " + set.channels.length + " sockets)");
            dropSet(set, "one of its sockets sent a contradicting hello");
            return null;
        }
        set.channels[handshake.socketIndex()] = handshake.channel();
        set.arrived++;
        socketsInSets++;
        if (set.arrived < set.channels.length) {
            return null;
        }
        sets.remove(id);
        socketsInSets -= set.arrived;
        return set;
    }

    /** Drops the sets whose sockets did not all arrive within the connect timeout. */
    private void expireSets(long now) {
        if (sets.isEmpty()) {
            return;
        }
        for (SocketSet set : List.copyOf(sets.values())) {
            if (now - set.deadlineNanos > 0) {
                dropSet(set, "only " + set.arrived + " of its " + set.channels.length + " sockets said hello within"
                        + " the connect timeout of " + transport.connectTimeoutNanos() / 1_000_000 + " ms");
            }
        }
    }

    private void dropSet(SocketSet set, String why) {
        sets.remove(set.connectionId);
        socketsInSets -= set.arrived;
        LOG.warn("{} dropped the {}-socket connection from rank {} at {}: {}", description, set.channels.length,
                set.rank, set.remote, why);
        for (SocketChannel channel : set.channels) {
            Quietly.close(channel);
        }
    }

    private void acceptSockets() {
        while (true) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                if (isClosed()) {
                    throw new NetException(NetException.Reason.CLOSED, description + " is closed", e);
                }
                throw new NetException(NetException.Reason.IO_ERROR, description + " failed to accept: " + e, e);
            }
            if (channel == null) {
                return;
            }
            String remote = remoteOf(channel);
            if (handshakes.size() + socketsInSets >= MAX_HANDSHAKES) {
                drop(channel, remote, "more than " + MAX_HANDSHAKES + " sockets are waiting for their hello or"
                        + " their connection's other sockets");
                continue;
            }
            try {
                channel.configureBlocking(false);
                transport.tuning().configure(channel);
            } catch (IOException e) {
                drop(channel, remote, "could not configure the socket: " + e);
                continue;
            }
            handshakes.add(new Handshake(channel, remote, System.nanoTime() + transport.connectTimeoutNanos()));
        }
    }

    private void drop(SocketChannel channel, String remote, String why) {
        LOG.warn("{} dropped the connection from {}: {}", description, remote, why);
        Quietly.close(channel);
    }

    private static String remoteOf(SocketChannel channel) {
        try {
            return String.valueOf(channel.getRemoteAddress());
        } catch (IOException e) {
            return "an unknown address";
        }
    }

    @Override
    public void close() {
        if (!markClosed()) {
            return;
        }
        Quietly.close(server);
        transport.forget(this);
        synchronized (this) {
            for (Handshake handshake : handshakes) {
                Quietly.close(handshake.channel());
            }
            handshakes.clear();
            for (SocketSet set : sets.values()) {
                for (SocketChannel channel : set.channels) {
                    Quietly.close(channel);
                }
            }
            sets.clear();
            socketsInSets = 0;
            reverseWaits.clear();   // their sockets belong to send connections
        }
    }

}
