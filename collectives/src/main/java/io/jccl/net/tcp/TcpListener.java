package io.jccl.net.tcp;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.RecvConnection;
import java.io.IOException;
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
 * <p>{@link #accept()} is synchronized: it is called during setup only, and {@link #close()} may come from
 * another thread.
 */
final class TcpListener implements Listener {
    private static final Logger LOG = JcclLog.logger(Subsystem.NET, TcpListener.class);
    /**
     * Most accepted sockets waiting at once for their hello or for the rest of their connection's sockets; more
     * are closed (a flood, not peers).
     */
    static final int MAX_HANDSHAKES = 1024;

    private final TcpNetTransport transport;
    private final ServerSocketChannel server;
    private final byte[] token;
    private final byte[] handle;
    private final String description;
    private final List<Handshake> handshakes = new ArrayList<>();
    /** Connections of several sockets of which some have said hello, by connection id. */
    private final Map<Long, SocketSet> sets = new HashMap<>();
    /** Sockets waiting in {@link #sets}. */
    private int socketsInSets;
    private volatile boolean closed;

    /** The sockets of one connection that have said hello so far. */
    private static final class SocketSet {
        final long connectionId;
        final int rank;
        final SocketChannel[] channels;
        final String remote;
        final long deadlineNanos;
        int arrived;

        SocketSet(long connectionId, int rank, int count, String remote, long deadlineNanos) {
            this.connectionId = connectionId;
            this.rank = rank;
            this.channels = new SocketChannel[count];
            this.remote = remote;
            this.deadlineNanos = deadlineNanos;
        }
    }

    TcpListener(TcpNetTransport transport, ServerSocketChannel server, TcpHandle handle) {
        this.transport = transport;
        this.server = server;
        this.token = handle.token();
        this.handle = handle.encode();
        this.description = "tcp listener " + handle.address();
    }

    @Override
    public byte[] handle() {
        return handle.clone();
    }

    @Override
    public synchronized RecvConnection accept() {
        if (closed) {
            throw new NetException(NetException.Reason.CLOSED, description + " is closed");
        }
        acceptSockets();
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
            if (handshake.socketCount() == 1) {
                return transport.openRecv(new SocketChannel[] {handshake.channel()}, handshake.peerRank(),
                        handshake.remote());
            }
            SocketSet complete = join(handshake, now);
            if (complete != null) {
                return transport.openRecv(complete.channels, complete.rank, complete.remote);
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
                    now + transport.connectTimeoutNanos());
            sets.put(id, set);
        } else if (set.rank != handshake.peerRank() || set.channels.length != handshake.socketCount()
                || set.channels[handshake.socketIndex()] != null) {
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
            closeQuietly(channel);
        }
    }

    private void acceptSockets() {
        while (true) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                if (closed) {
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
        closeQuietly(channel);
    }

    private static void closeQuietly(SocketChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // dropping it anyway
            }
        }
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
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        transport.forget(this);
        synchronized (this) {
            for (Handshake handshake : handshakes) {
                closeQuietly(handshake.channel());
            }
            handshakes.clear();
            for (SocketSet set : sets.values()) {
                for (SocketChannel channel : set.channels) {
                    closeQuietly(channel);
                }
            }
            sets.clear();
            socketsInSets = 0;
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
