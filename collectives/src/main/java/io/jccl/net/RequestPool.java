package io.jccl.net;

import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

/**
 * A {@link PooledConnection}'s free {@link PooledRequest} objects, all made up front, so that posting allocates
 * nothing. A request
 * is taken when it is posted and comes back by itself once {@link PooledRequest#test()} has reported its outcome.
 * Used by the thread that drives the connection.
 *
 * @param <R> the transport's request type
 */
final class RequestPool<R extends PooledRequest> {
    private final PooledRequest[] free;
    private int freeCount;

    /**
     * @param capacity how many requests may be outstanding at once
     * @param requests makes one request object; called {@code capacity} times, here
     * @param owner    the connection whose progress testing a request runs
     */
    RequestPool(int capacity, Supplier<R> requests, PooledConnection<R> owner) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("request pool capacity must be positive, got " + capacity);
        }
        free = new PooledRequest[capacity];
        for (int i = 0; i < capacity; i++) {
            R request = requests.get();
            request.pool = this;
            request.owner = owner;
            free[i] = request;
        }
        freeCount = capacity;
    }

    /**
     * Takes a free request and starts it for a newly posted message.
     *
     * @return the request, pending, or null when all are outstanding
     */
    @SuppressWarnings("unchecked")   // holds only what the supplier made
    R take(MemorySegment segment, long offset, long sizeBytes, long tag) {
        if (freeCount == 0) {
            return null;
        }
        R request = (R) free[--freeCount];
        request.start(segment, offset, sizeBytes, tag);
        return request;
    }

    /** Returns a request whose outcome has been reported. */
    void release(PooledRequest request) {
        request.recycle();
        free[freeCount++] = request;
    }
}
