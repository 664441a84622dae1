package io.jccl.net.tcp;

import io.jccl.net.AbstractPendingConnect;
import io.jccl.net.NetException;
import io.jccl.net.SendConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A non-blocking connection attempt: finishes the TCP connect of each of the connection's sockets, all started at
 * once, then writes each one's hello frame. The connection is returned once every hello is in the kernel's
 * socket buffer; the listener checks them when its owner polls {@code accept()}, so the two sides need not poll in
 * any particular order. Fails with {@link NetException.Reason#IO_ERROR} when the peer refuses any socket, or when
 * the connect timeout passes before all are connected (the message says how many were).
 *
 * <p>Taking a peer's offered connection for the other direction, the sockets are connected already and belong to
 * that receive connection: only the REVERSE hellos are written, and a failure or cancel leaves the sockets to it.
 */
final class TcpPendingConnect extends AbstractPendingConnect {
    private final TcpNetTransport transport;
    private final SocketChannel[] channels;
    private final InetSocketAddress peer;
    private final ByteBuffer[] hellos;
    private final boolean[] connected;
    private final long startNanos;
    private final long deadlineNanos;
    /** The receive connection whose sockets these are (a REVERSE connect), or null. */
    private final TcpRecvConnection sharedWith;
    /** Whether the hellos offer the sockets to the peer for the other direction. */
    private final boolean offered;

    /**
     * @param channels  the connection's sockets, connecting
     * @param hellos    each socket's hello frame, ready to write
     * @param connected which sockets connected at once
     * @param sharedWith the receive connection whose sockets these are (a REVERSE connect), or null
     * @param offered    whether the hellos offer the sockets to the peer
     */
    TcpPendingConnect(TcpNetTransport transport, SocketChannel[] channels, InetSocketAddress peer, ByteBuffer[] hellos,
                      boolean[] connected, TcpRecvConnection sharedWith, boolean offered) {
        super("connection attempt to " + peer);
        this.sharedWith = sharedWith;
        this.offered = offered;
        this.transport = transport;
        this.channels = channels;
        this.peer = peer;
        this.hellos = hellos;
        this.connected = connected;
        this.startNanos = System.nanoTime();
        this.deadlineNanos = startNanos + transport.connectTimeoutNanos();
    }

    @Override
    protected SendConnection attempt() {
        int ready = 0;
        try {
            for (int i = 0; i < channels.length; i++) {
                if (!connected[i]) {
                    connected[i] = channels[i].finishConnect();
                }
                if (connected[i]) {
                    channels[i].write(hellos[i]);
                    if (!hellos[i].hasRemaining()) {
                        ready++;
                    }
                }
            }
        } catch (IOException e) {
            throw fail("connecting to " + peer + " failed" + socketsSoFar(ready) + ": " + e, e);
        }
        if (ready == channels.length) {
            TcpSendConnection connection = transport.openSend(channels, peer, sharedWith, offered);
            transport.forget(this);
            return connection;
        }
        long now = System.nanoTime();
        if (now - deadlineNanos > 0) {
            throw fail("connecting to " + peer + " timed out after " + (now - startNanos) / 1_000_000 + " ms"
                    + socketsSoFar(ready), null);
        }
        return null;
    }

    /** @return for a connection of several sockets, how many had connected and said hello */
    private String socketsSoFar(int ready) {
        return channels.length == 1 ? "" : " (" + ready + " of its " + channels.length + " sockets were connected)";
    }

    private static NetException fail(String message, Throwable cause) {
        return new NetException(NetException.Reason.IO_ERROR, message, cause);
    }

    @Override
    protected void release() {
        if (sharedWith != null) {
            transport.forget(this);   // the sockets stay the receive connection's
            return;
        }
        Quietly.closeAll(channels);
        transport.forget(this);
    }

    @Override
    public String toString() {
        return "tcp connect to " + peer;
    }
}
