package io.jccl.net.tcp;

import io.jccl.net.NetException;
import io.jccl.net.PooledRequest;

/**
 * A send or receive on one {@link TcpConnection}, from the connection's pool.
 *
 * <p>Fields are package-private and driven by the owning connection on the thread that drives it.
 */
final class TcpRequest extends PooledRequest {
    /** Send: the stripes the message goes out in. Receive: those of the matched message, once its header is read. */
    int stripes;
    /**
     * The socket that carries stripe 0: 0, or the first bulk socket of a BULK message (whose header alone then
     * travels on socket 0). Stripe {@code i} travels on socket {@code firstSocket + i}.
     */
    int firstSocket;
    /**
     * One bit per socket whose stripe of this message is not yet all written (send) or read (receive). The
     * request completes, in posting order, once none is left.
     */
    int pendingSockets;
    /** Send: for each socket, its stream position after this message's stripe; set once the stripe is staged. */
    final long[] stripeEnd;
    /** Receive: the matched message's length, or -1 until its header has been read. */
    long messageBytes;
    /** Receive: why its message is rejected while the message is still being drained, or null. */
    NetException rejection;

    /** @param sockets the connection's socket count, which sizes the per-socket state */
    TcpRequest(int sockets) {
        this.stripeEnd = new long[sockets];
    }

    /** @return whether socket {@code socket} carries part of this message (socket 0 always carries its header) */
    boolean onSocket(int socket) {
        return socket == 0 || (socket >= firstSocket && socket < firstSocket + stripes);
    }

    /**
     * @param length the message length
     * @param socket a socket that {@link #onSocket carries part of it}
     * @return where the payload bytes that socket carries start within the message (its end: {@code socket + 1})
     */
    long stripeStart(long length, int socket) {
        if (socket < firstSocket) {
            return 0;   // socket 0 of a BULK message: no payload
        }
        return Wire.stripeStart(length, stripes, socket - firstSocket);
    }

    /** @return one bit per socket this message's payload travels on (a BULK message: not socket 0) */
    int payloadSockets() {
        return ((1 << stripes) - 1) << firstSocket;
    }

    @Override
    protected void onStart() {
        stripes = 0;
        firstSocket = 0;
        pendingSockets = 0;
        messageBytes = -1;
        rejection = null;
    }
}
