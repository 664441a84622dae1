package io.jccl.net.shm;

/** A bounded first-in first-out queue of requests, preallocated, so that posting and completing allocate nothing. */
final class RequestFifo {
    private final ShmRequest[] items;
    private int head;
    private int size;

    RequestFifo(int capacity) {
        items = new ShmRequest[capacity];
    }

    void add(ShmRequest request) {
        if (size == items.length) {
            throw new IllegalStateException("request queue full");
        }
        items[(head + size) % items.length] = request;
        size++;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** @return the oldest request */
    ShmRequest first() {
        return items[head];
    }

    /** Removes and returns the oldest request. */
    ShmRequest pop() {
        ShmRequest r = items[head];
        items[head] = null;
        head = (head + 1) % items.length;
        size--;
        return r;
    }
}
