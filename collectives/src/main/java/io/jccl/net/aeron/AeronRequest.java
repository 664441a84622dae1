package io.jccl.net.aeron;

import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import java.lang.foreign.MemorySegment;

/**
 * A send or receive on one {@link AeronConnection}. The connection owns a fixed pool of these and reuses them: an
 * object is taken when the request is posted and given back once {@link #test()} has reported its outcome.
 * Fields are driven by the owning connection on the thread that drives it.
 */
final class AeronRequest implements NetRequest {
    static final int FREE = 0;
    static final int PENDING = 1;
    static final int DONE = 2;
    static final int FAILED = 3;

    private final AeronConnection owner;

    int state = FREE;
    MemorySegment segment;
    long offset;
    /** Send: the message length. Receive: the capacity. */
    long sizeBytes;
    long tag;
    /** Payload bytes written to the log (send) or copied out of it (receive). */
    long movedBytes;
    /** Send: whether the first frame is in the log. Receive: whether its message's first frame was matched. */
    boolean started;
    /** Receive: the matched message's length. */
    long messageBytes;
    long resultBytes;
    NetException failure;

    AeronRequest(AeronConnection owner) {
        this.owner = owner;
    }

    void start(MemorySegment segment, long offset, long sizeBytes, long tag) {
        this.state = PENDING;
        this.segment = segment;
        this.offset = offset;
        this.sizeBytes = sizeBytes;
        this.tag = tag;
        this.movedBytes = 0;
        this.started = false;
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
