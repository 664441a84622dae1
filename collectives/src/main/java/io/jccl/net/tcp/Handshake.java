package io.jccl.net.tcp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * An accepted socket whose hello frame has not been read in full yet. Reads exactly {@value Wire#HELLO_BYTES}
 * bytes, so that message bytes the peer sends right after its hello stay in the socket for the connection. The
 * hello is checked alone (magic, version, token); {@link TcpListener} then joins the sockets of one connection.
 */
final class Handshake {
    /** Outcome of {@link #poll}. */
    enum Status {
        /** More bytes are needed. */
        PENDING,
        /** The hello is complete and valid. */
        ACCEPTED,
        /** The peer broke the protocol, closed, or took too long; see {@link #rejection()}. */
        REJECTED
    }

    private final SocketChannel channel;
    private final String remote;
    private final long deadlineNanos;
    private final ByteBuffer hello = ByteBuffer.allocate(Wire.HELLO_BYTES);
    private String rejection;

    Handshake(SocketChannel channel, String remote, long deadlineNanos) {
        this.channel = channel;
        this.remote = remote;
        this.deadlineNanos = deadlineNanos;
    }

    /**
     * Reads what has arrived and checks the hello once complete.
     *
     * @param token    the listener's token
     * @param nowNanos the current {@link System#nanoTime()}
     * @return the status
     */
    Status poll(byte[] token, long nowNanos) {
        try {
            if (channel.read(hello) < 0) {
                rejection = "closed after " + hello.position() + " of the " + Wire.HELLO_BYTES + " hello bytes";
                return Status.REJECTED;
            }
        } catch (IOException e) {
            rejection = "failed while sending its hello: " + e;
            return Status.REJECTED;
        }
        if (hello.hasRemaining()) {
            if (nowNanos - deadlineNanos > 0) {
                rejection = "sent only " + hello.position() + " of the " + Wire.HELLO_BYTES
                        + " hello bytes within the connect timeout";
                return Status.REJECTED;
            }
            return Status.PENDING;
        }
        rejection = Wire.checkHello(hello, token);
        return rejection == null ? Status.ACCEPTED : Status.REJECTED;
    }

    /** @return why the hello was rejected */
    String rejection() {
        return rejection;
    }

    /** @return the rank the peer named in its accepted hello */
    int peerRank() {
        return Wire.helloRank(hello);
    }

    /** @return the socket's index within its connection, from the accepted hello */
    int socketIndex() {
        return Wire.helloSocketIndex(hello);
    }

    /** @return the connection's socket count, from the accepted hello */
    int socketCount() {
        return Wire.helloSocketCount(hello);
    }

    /** @return the connection id, from the accepted hello */
    long connectionId() {
        return Wire.helloConnectionId(hello);
    }

    /** @return the flags of the accepted hello ({@link Wire#FLAG_OFFER}, {@link Wire#FLAG_REVERSE} or 0) */
    int flags() {
        return Wire.helloFlags(hello);
    }

    /** @return the sender's own listener token, from the accepted hello */
    byte[] senderToken() {
        return Wire.helloSenderToken(hello);
    }

    SocketChannel channel() {
        return channel;
    }

    /** @return the peer's address, for messages */
    String remote() {
        return remote;
    }
}
