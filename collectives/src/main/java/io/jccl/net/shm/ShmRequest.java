package io.jccl.net.shm;

import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.RecvSink;
import java.lang.foreign.MemorySegment;

/**
 * A send or receive on one {@link ShmConnection}. The connection owns a fixed pool of these and reuses them: an object
 * is taken when the request is posted and given back once {@link #test()} has reported its outcome. Fields are driven
 * by the owning connection on the thread that drives it.
 */
final class ShmRequest implements NetRequest {
    static final int FREE = 0;
    static final int PENDING = 1;
    static final int DONE = 2;
    static final int FAILED = 3;

    private final ShmConnection owner;

    int state = FREE;
    MemorySegment segment;
    /** Receive: takes the message's bytes where the ring or the sender's memory holds them, instead of segment. */
    RecvSink sink;
    long offset;
    /** Send: the message length. Receive: the capacity. */
    long sizeBytes;
    long tag;
    /** Payload bytes written to the ring (send) or into the receive (receive). */
    long movedBytes;
    /** Send: whether its first record is in the ring. */
    boolean started;
    /** Send: the sender asked for the receiver to read it where it lies ({@code isendSingleCopy}). */
    boolean singleCopy;
    /** The record kind carrying the message ({@link Records}), once chosen (send) or matched (receive). */
    int kind;
    /** Receive: the matched message's length. */
    long messageBytes;
    /** Receive of a descriptor: where the message lies in the sender's memory (address or heap offset). */
    long source;
    /** Send of a descriptor: the acknowledgement count that completes it. */
    long ackIndex;
    long resultBytes;
    NetException failure;

    ShmRequest(ShmConnection owner) {
        this.owner = owner;
    }

    void start(MemorySegment segment, long offset, long sizeBytes, long tag) {
        this.state = PENDING;
        this.segment = segment;
        this.sink = null;
        this.offset = offset;
        this.sizeBytes = sizeBytes;
        this.tag = tag;
        this.movedBytes = 0;
        this.started = false;
        this.singleCopy = false;
        this.kind = 0;
        this.messageBytes = -1;
        this.source = 0;
        this.ackIndex = 0;
        this.resultBytes = 0;
        this.failure = null;
    }

    void complete(long bytes) {
        state = DONE;
        resultBytes = bytes;
        segment = null;
        sink = null;
    }

    void fail(NetException e) {
        state = FAILED;
        failure = e;
        segment = null;
        sink = null;
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
