package io.jccl.net.aeron;

/**
 * A connection's request objects: a fixed pool of free ones and the FIFO of pending ones, both preallocated so
 * that posting and completing requests allocates nothing.
 */
final class RequestRing {
    private final AeronRequest[] free;
    private int freeCount;
    private final AeronRequest[] pending;
    private int head;
    private int pendingCount;

    RequestRing(AeronConnection owner, int capacity) {
        free = new AeronRequest[capacity];
        pending = new AeronRequest[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = new AeronRequest(owner);
        }
        freeCount = capacity;
    }

    /** @return a free request, or null when all are outstanding */
    AeronRequest acquire() {
        return freeCount == 0 ? null : free[--freeCount];
    }

    /** Returns a request whose outcome has been reported. */
    void release(AeronRequest request) {
        request.state = AeronRequest.FREE;
        request.segment = null;
        request.failure = null;
        free[freeCount++] = request;
    }

    void enqueue(AeronRequest request) {
        pending[(head + pendingCount) % pending.length] = request;
        pendingCount++;
    }

    int size() {
        return pendingCount;
    }

    /** @return the oldest pending request */
    AeronRequest first() {
        return pending[head];
    }

    /** Removes the oldest pending request. */
    void pop() {
        pending[head] = null;
        head = (head + 1) % pending.length;
        pendingCount--;
    }
}
