package io.jccl.net.shm;

/**
 * A connection's request objects: a fixed pool of free ones and the FIFO of pending ones, both preallocated so
 * that posting and completing requests allocates nothing.
 */
final class RequestRing {
    private final ShmRequest[] free;
    private int freeCount;
    private final ShmRequest[] pending;
    private int head;
    private int pendingCount;

    RequestRing(ShmConnection owner, int capacity) {
        free = new ShmRequest[capacity];
        pending = new ShmRequest[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = new ShmRequest(owner);
        }
        freeCount = capacity;
    }

    /** @return a free request, or null when all are outstanding */
    ShmRequest acquire() {
        return freeCount == 0 ? null : free[--freeCount];
    }

    /** Returns a request whose outcome has been reported. */
    void release(ShmRequest request) {
        request.state = ShmRequest.FREE;
        request.segment = null;
        request.failure = null;
        free[freeCount++] = request;
    }

    void enqueue(ShmRequest request) {
        pending[(head + pendingCount) % pending.length] = request;
        pendingCount++;
    }

    int size() {
        return pendingCount;
    }

    /** @return the oldest pending request */
    ShmRequest first() {
        return pending[head];
    }

    /** Removes the oldest pending request. */
    void pop() {
        pending[head] = null;
        head = (head + 1) % pending.length;
        pendingCount--;
    }
}
