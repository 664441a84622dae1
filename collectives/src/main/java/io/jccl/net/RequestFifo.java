package io.jccl.net;

/**
 * A bounded first-in first-out queue of pending requests, preallocated, so that posting and completing allocate
 * nothing. Requests are numbered in the order they were added (their sequence number, counted from 0), so that a
 * transport can keep several places in the queue (one per socket, say) while the oldest requests leave it. Used by
 * the thread that drives the connection.
 *
 * @param <R> the transport's request type
 */
public final class RequestFifo<R extends PooledRequest> {
    private final PooledRequest[] items;
    private int head;
    private int size;
    /** Sequence number of the oldest request (of the next one to be added, when empty). */
    private long headSeq;

    /** @param capacity how many requests the queue holds at once */
    public RequestFifo(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("request queue capacity must be positive, got " + capacity);
        }
        items = new PooledRequest[capacity];
    }

    /**
     * Appends a request.
     *
     * @throws IllegalStateException when the queue is full (a connection holds no more than its pool)
     */
    public void add(R request) {
        if (size == items.length) {
            throw new IllegalStateException("request queue full");
        }
        items[(head + size) % items.length] = request;
        size++;
    }

    /** @return the number of requests queued */
    public int size() {
        return size;
    }

    /** @return whether no request is queued */
    public boolean isEmpty() {
        return size == 0;
    }

    /** @return the oldest request, which must exist */
    public R first() {
        return get(0);
    }

    /** @return the i-th request, 0 being the oldest */
    @SuppressWarnings("unchecked")   // holds only what add took
    public R get(int i) {
        return (R) items[(head + i) % items.length];
    }

    /** Removes and returns the oldest request. */
    public R pop() {
        R request = first();
        items[head] = null;
        head = (head + 1) % items.length;
        size--;
        headSeq++;
        return request;
    }

    /** @return the sequence number of the oldest request, or of the next one when the queue is empty */
    public long headSeq() {
        return headSeq;
    }

    /** @return the sequence number the next added request gets */
    public long endSeq() {
        return headSeq + size;
    }

    /** @return the request numbered {@code seq}, which must be from {@link #headSeq()} to before {@link #endSeq()} */
    public R bySeq(long seq) {
        return get((int) (seq - headSeq));
    }

    /** Removes every request, oldest first, failing each with its own exception of this reason and message. */
    public void failAll(NetException.Reason reason, String message, Throwable cause) {
        while (size > 0) {
            pop().fail(new NetException(reason, message, cause));
        }
    }
}
