package io.jccl.net.tcp;

/**
 * A connection's request objects: a fixed pool of free ones and the FIFO of pending ones, both preallocated so
 * that posting and completing requests allocates nothing.
 */
final class RequestQueue {
    private final TcpRequest[] free;
    private int freeCount;
    private final TcpRequest[] pending;
    private int head;
    private int pendingCount;

    /**
     * @param owner    the connection the requests belong to
     * @param capacity how many requests may be outstanding at once
     */
    RequestQueue(TcpConnection owner, int capacity) {
        free = new TcpRequest[capacity];
        pending = new TcpRequest[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = new TcpRequest(owner);
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

    /** Removes the oldest pending request. */
    void pop() {
        pending[head] = null;
        head = (head + 1) % pending.length;
        pendingCount--;
    }
}
