package io.jccl.net.tcp;

import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import java.lang.foreign.MemorySegment;

/**
 * A send or receive on one {@link TcpConnection}. The connection owns a fixed pool of these and reuses them: an
 * object is taken when the request is posted and given back once {@link #test()} has reported its outcome.
 *
 * <p>Fields are package-private and driven by the owning connection on the thread that drives it.
 */
final class TcpRequest implements NetRequest {
    /** In the pool, owned by the connection. */
    static final int FREE = 0;
    /** Posted and not yet complete. */
    static final int PENDING = 1;
    /** Complete; {@link #resultBytes} holds the outcome until {@link #test()} reports it. */
    static final int DONE = 2;
    /** Failed; {@link #failure} holds the outcome until {@link #test()} reports it. */
    static final int FAILED = 3;

    private final TcpConnection owner;

    int state = FREE;
    MemorySegment segment;
    long offset;
    /** Send: the message length. Receive: the capacity. */
    long sizeBytes;
    long tag;
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
    long resultBytes;
    /** The outcome when it is a failure, also set by a receive whose message is rejected and still being drained. */
    NetException failure;

    TcpRequest(TcpConnection owner, int sockets) {
        this.owner = owner;
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

    /** Prepares a pooled object for a newly posted request. */
    void start(MemorySegment segment, long offset, long sizeBytes, long tag) {
        this.state = PENDING;
        this.segment = segment;
        this.offset = offset;
        this.sizeBytes = sizeBytes;
        this.tag = tag;
        this.stripes = 0;
        this.firstSocket = 0;
        this.pendingSockets = 0;
        this.messageBytes = -1;
        this.resultBytes = 0;
        this.failure = null;
    }

    void complete(long bytes) {
        state = DONE;
        resultBytes = bytes;
        segment = null;
    }

    void fail(NetException e) {
        state = FAILED;
        failure = e;
        segment = null;
    }

    @Override
    public long test() {
        if (state == PENDING) {
            owner.progress();
        }
        switch (state) {
            case PENDING:
                return NOT_DONE;
            case DONE:
                long bytes = resultBytes;
                owner.release(this);
                return bytes;
            case FAILED:
                NetException e = failure;
                owner.release(this);
                throw e;
            default:
                throw new IllegalStateException("request tested after it completed: it belongs to the transport again");
        }
    }
}
