package io.jccl.net.tcp;

import io.jccl.net.NetException;
import io.jccl.net.PendingConnect;
import io.jccl.net.SendConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A non-blocking connection attempt: finishes the TCP connect, then writes the hello frame. The connection is
 * returned once the hello is in the kernel's socket buffer; the listener checks it when its owner polls
 * {@code accept()}, so the two sides need not poll in any particular order. Fails with
 * {@link NetException.Reason#IO_ERROR} when the peer refuses or the connect timeout passes.
 */
final class TcpPendingConnect implements PendingConnect {
    private final TcpNetTransport transport;
    private final SocketChannel channel;
    private final InetSocketAddress peer;
    private final ByteBuffer hello;
    private final long startNanos;
    private final long deadlineNanos;
    private boolean connected;
    private TcpSendConnection connection;
    private NetException failure;
    private volatile boolean cancelled;

    TcpPendingConnect(TcpNetTransport transport, SocketChannel channel, InetSocketAddress peer, ByteBuffer hello,
                      boolean connected) {
        this.transport = transport;
        this.channel = channel;
        this.peer = peer;
        this.hello = hello;
        this.connected = connected;
        this.startNanos = System.nanoTime();
        this.deadlineNanos = startNanos + transport.connectTimeoutNanos();
    }

    @Override
    public SendConnection poll() {
        if (connection != null) {
            return connection;
        }
        if (failure != null) {
            throw failure;
        }
        if (cancelled) {
            throw new NetException(NetException.Reason.CLOSED, "connection attempt to " + peer + " was cancelled");
        }
        try {
            if (!connected) {
                connected = channel.finishConnect();
            }
            if (connected) {
                channel.write(hello);
                if (!hello.hasRemaining()) {
                    connection = transport.openSend(channel, peer);
                    transport.forget(this);
                    return connection;
                }
            }
        } catch (IOException e) {
            throw fail("connecting to " + peer + " failed: " + e, e);
        }
        long now = System.nanoTime();
        if (now - deadlineNanos > 0) {
            throw fail("connecting to " + peer + " timed out after " + (now - startNanos) / 1_000_000 + " ms", null);
        }
        return null;
    }

    private NetException fail(String message, Throwable cause) {
        failure = new NetException(cancelled ? NetException.Reason.CLOSED : NetException.Reason.IO_ERROR, message, cause);
        release();
        return failure;
    }

    @Override
    public void cancel() {
        if (connection != null || cancelled) {
            return;
        }
        cancelled = true;
        release();
    }

    private void release() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // giving up anyway
        }
        transport.forget(this);
    }

    @Override
    public String toString() {
        return "tcp connect to " + peer;
    }
}
