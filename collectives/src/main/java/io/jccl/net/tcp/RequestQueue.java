package io.jccl.net.tcp;

/**
 * A connection's request objects: a fixed pool of free ones and the FIFO of pending ones, both preallocated so
 * that posting and completing requests allocates nothing. Pending requests are numbered in posting order
 * (their sequence number, counted from 0 since the connection opened), so that each socket of a connection can
 * keep its own place in the FIFO while the oldest requests complete and leave it.
 */
final class RequestQueue {
    private final TcpRequest[] free;
    private int freeCount;
    private final TcpRequest[] pending;
    private int head;
    private int pendingCount;
    /** Sequence number of the oldest pending request (of the next one to be posted, when none is pending). */
    private long headSeq;

    /**
     * @param owner    the connection the requests belong to
     * @param capacity how many requests may be outstanding at once
     * @param sockets  the connection's socket count, which sizes each request's per-socket state
     */
    RequestQueue(TcpConnection owner, int capacity, int sockets) {
        free = new TcpRequest[capacity];
        pending = new TcpRequest[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = new TcpRequest(owner, sockets);
        }
        freeCount = capacity;
    }

    /** @return a free request, or null when all are outstanding */
    TcpRequest acquire() {
        return freeCount == 0 ? null : free[--freeCount];
    }

    /** Returns a request whose outcome has been reported. */
    void release(TcpRequest request) {
        request.state = TcpRequest.FREE;
        request.segment = null;
        request.failure = null;
        free[freeCount++] = request;
    }

    /** Appends a posted request to the pending FIFO. */
    void enqueue(TcpRequest request) {
        pending[(head + pendingCount) % pending.length] = request;
        pendingCount++;
    }

    /** @return the number of pending requests */
    int size() {
        return pendingCount;
    }

    /** @return the i-th pending request, 0 being the oldest */
    TcpRequest get(int i) {
        return pending[(head + i) % pending.length];
    }

    /** @return the sequence number of the oldest pending request, or of the next one when none is pending */
    long headSeq() {
        return headSeq;
    }

    /** @return the sequence number the next posted request will get */
    long endSeq() {
        return headSeq + pendingCount;
    }

    /** @return the pending request numbered {@code seq}, which must be from {@link #headSeq()} to before {@link #endSeq()} */
    TcpRequest bySeq(long seq) {
        return get((int) (seq - headSeq));
    }

    /** Removes the oldest pending request. */
    void pop() {
        pending[head] = null;
        head = (head + 1) % pending.length;
        pendingCount--;
        headSeq++;
    }
}
