package io.jccl.net;

import java.lang.foreign.MemorySegment;

/**
 * A send or receive that its connection keeps in a fixed {@link RequestPool} and reuses, so that posting and
 * completing requests allocates nothing: the shared part of the request objects of the transports that progress
 * inside {@link #test()}.
 *
 * <p>A request is free (in its pool), pending (posted), done or failed. The connection completes or fails it on
 * the thread that drives the connection; {@link #test()} reports the outcome once and gives the object back to the
 * pool. A subclass adds the transport's per-message state and resets it in {@link #onStart()}; testing a pending
 * request runs its connection's {@link PooledConnection#progress()}.
 */
public abstract class PooledRequest implements NetRequest {
    private static final int FREE = 0;
    private static final int PENDING = 1;
    private static final int DONE = 2;
    private static final int FAILED = 3;

    private int state = FREE;
    /** The pool this request returns to and the connection it progresses; set once by the pool that made it. */
    RequestPool<?> pool;
    PooledConnection<?> owner;
    private MemorySegment segment;
    private long offset;
    private long sizeBytes;
    private long tag;
    private long resultBytes;
    private NetException failure;

    /** For subclasses; a {@link RequestPool} makes the objects. */
    protected PooledRequest() {
    }

    /** Resets the transport's per-message state for a newly posted request. */
    protected abstract void onStart();

    /**
     * Drops the references to message memory that the subclass holds besides {@link #segment()}; called when the
     * request completes or fails and when it returns to its pool. Does nothing unless overridden.
     */
    protected void onFinish() {
    }

    /** Prepares a free object for a newly posted request; called by its pool. */
    final void start(MemorySegment segment, long offset, long sizeBytes, long tag) {
        this.state = PENDING;
        this.segment = segment;
        this.offset = offset;
        this.sizeBytes = sizeBytes;
        this.tag = tag;
        this.resultBytes = 0;
        this.failure = null;
        onStart();
    }

    /** Back in the pool: drops every reference to message memory and to the outcome. */
    final void recycle() {
        state = FREE;
        segment = null;
        failure = null;
        onFinish();
    }

    /** @return the message memory, or null once the request completed */
    public final MemorySegment segment() {
        return segment;
    }

    /** @return where the message starts in {@link #segment()} */
    public final long offset() {
        return offset;
    }

    /** @return send: the message length; receive: the capacity */
    public final long sizeBytes() {
        return sizeBytes;
    }

    /** @return the tag the send carries, or the tag the receive expects */
    public final long tag() {
        return tag;
    }

    /**
     * Completes the request; its owning connection calls this on the driving thread.
     *
     * @param bytes the bytes sent or received, which {@link #test()} reports
     */
    public final void complete(long bytes) {
        state = DONE;
        resultBytes = bytes;
        segment = null;
        onFinish();
    }

    /**
     * Fails the request; its owning connection calls this on the driving thread.
     *
     * @param e the failure {@link #test()} throws
     */
    public final void fail(NetException e) {
        state = FAILED;
        failure = e;
        segment = null;
        onFinish();
    }

    @Override
    public final long test() {
        if (state == PENDING) {
            owner.progress();
        }
        switch (state) {
            case PENDING:
                return NOT_DONE;
            case DONE:
                long bytes = resultBytes;
                pool.release(this);
                return bytes;
            case FAILED:
                NetException e = failure;
                pool.release(this);
                throw e;
            default:
                throw new IllegalStateException("request tested after it completed: it belongs to the transport again");
        }
    }
}
