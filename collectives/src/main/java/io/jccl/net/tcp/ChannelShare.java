package io.jccl.net.tcp;

import java.io.IOException;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * The sockets that a send connection and a receive connection between the same two ranks share: one side offered
 * its connection's sockets ({@link Wire#FLAG_OFFER}), the other took them for its own sending
 * ({@link Wire#FLAG_REVERSE}). Each direction's messages then carry the acknowledgements of the other's, where two
 * one-way sockets send a separate ACK segment for every message (measured: twice the segments of Open MPI's one
 * socket per peer in an 8-byte all-reduce, docs/performance.md).
 *
 * <p>Closing: the send connection's close half-closes the sockets (the peer's receive connection reads the end of
 * its stream, as it would from a closed one-way socket) while the receive connection still reads; the sockets close
 * when both connections have. A connection that finds its direction ended by the peer leaves like a closing one; one
 * that breaks otherwise (a protocol or I/O error) closes the sockets outright, and the other fails on its next
 * system call. Both connections register the sockets with the transport's selector through this object, for
 * the union of what they wait for (a channel has one key per selector).
 */
final class ChannelShare {
    final SocketChannel[] channels;
    private TcpConnection send;
    private TcpConnection recv;
    private int open;
    /** The sockets' keys in the transport's selector; made by the first {@link #watch}. */
    private SocketInterest interest;

    ChannelShare(SocketChannel[] channels) {
        this.channels = channels.clone();
    }

    /** Adds a user; a connection already closed counts as gone. */
    synchronized void attach(TcpConnection connection) {
        if (connection instanceof TcpSendConnection) {
            send = connection;
        } else {
            recv = connection;
        }
        open++;
        connection.share(this);
        if (connection.isClosed()) {
            release(connection);
        }
    }

    /** A user closed: the send side half-closes while the other reads on; the last one closes the sockets. */
    synchronized void release(TcpConnection connection) {
        if (connection == send) {
            send = null;
        } else if (connection == recv) {
            recv = null;
        } else {
            return;
        }
        open--;
        for (SocketChannel channel : channels) {
            try {
                if (open == 0) {
                    channel.close();
                } else if (connection instanceof TcpSendConnection && channel.isOpen()) {
                    channel.shutdownOutput();
                }
            } catch (IOException ignored) {
                // the socket is going away anyway; the other user finds out on its next call
            }
        }
    }

    /** Closes the sockets at once (a connection broke). */
    void closeAll() {
        Quietly.closeAll(channels);
    }

    /** Registers the sockets for what either user's progress waits for (see {@link TcpConnection#watch}). */
    synchronized void watch(Selector selector) {
        if (interest == null) {
            interest = new SocketInterest(channels);
        }
        for (int i = 0; i < channels.length; i++) {
            if (!interest.set(selector, i, wanted(send, i) | wanted(recv, i))) {
                return;   // closed meanwhile: the next progress() reports it
            }
        }
    }

    private static int wanted(TcpConnection connection, int socket) {
        return connection != null && connection.watchable() ? connection.wantedOps(socket) : 0;
    }
}
