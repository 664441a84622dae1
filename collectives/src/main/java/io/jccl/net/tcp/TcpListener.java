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
import java.util.Iterator;
import java.util.List;
import org.slf4j.Logger;

/**
 * Accepts the connections of all peers on one non-blocking server socket. A connection surfaces from
 * {@link #accept()} only after its hello frame arrived with the right magic, version and token; any other is
 * closed and dropped with a warning, as is one that does not finish its hello within the connect timeout.
 *
 * <p>{@link #accept()} is synchronized: it is called during setup only, and {@link #close()} may come from
 * another thread.
 */
final class TcpListener implements Listener {
    private static final Logger LOG = JcclLog.logger(Subsystem.NET, TcpListener.class);
    /** Most accepted sockets waiting for their hello at once; more are closed (a flood, not peers). */
    static final int MAX_HANDSHAKES = 1024;

    private final TcpNetTransport transport;
    private final ServerSocketChannel server;
    private final byte[] token;
    private final byte[] handle;
    private final String description;
    private final List<Handshake> handshakes = new ArrayList<>();
    private volatile boolean closed;

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
            return transport.openRecv(handshake.channel(), handshake.peerRank(), handshake.remote());
        }
        return null;
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
            if (handshakes.size() >= MAX_HANDSHAKES) {
                drop(channel, remote, "more than " + MAX_HANDSHAKES + " connections are waiting for their hello");
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
        try {
            channel.close();
        } catch (IOException ignored) {
            // dropping it anyway
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
                try {
                    handshake.channel().close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
            handshakes.clear();
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
