package io.jccl.net.tcp;

import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * The keys of a connection's sockets in the transport's selector, and the interest each was last given, so that the
 * thread about to sleep registers a socket once and changes its interest only when it changed. Used by that thread
 * alone.
 */
final class SocketInterest {
    private final SocketChannel[] channels;
    private final SelectionKey[] keys;
    private final int[] keyOps;

    /** @param channels the sockets, in index order */
    SocketInterest(SocketChannel[] channels) {
        this.channels = channels;
        this.keys = new SelectionKey[channels.length];
        this.keyOps = new int[channels.length];
    }

    /**
     * Gives socket {@code socket} the interest {@code ops}, registering it with {@code selector} the first time it
     * wants something.
     *
     * @return false when the socket was closed meanwhile (the next progress() reports it)
     */
    boolean set(Selector selector, int socket, int ops) {
        try {
            if (keys[socket] == null) {
                if (ops != 0) {
                    keys[socket] = channels[socket].register(selector, ops);
                    keyOps[socket] = ops;
                }
            } else if (keyOps[socket] != ops) {
                keys[socket].interestOps(ops);
                keyOps[socket] = ops;
            }
            return true;
        } catch (ClosedChannelException | CancelledKeyException e) {
            return false;
        }
    }
}
