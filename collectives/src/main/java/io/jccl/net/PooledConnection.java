package io.jccl.net;

import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

/**
 * The lifecycle that the connections of the transports progressing inside {@link NetRequest#test()} share: a fixed
 * {@link RequestPool}, the checks made when a request is posted, and the rules for breaking and closing.
 *
 * <p>A connection is closed once ({@link #markClosed()}), from any thread; the driving thread then fails the
 * pending requests with {@link NetException.Reason#CLOSED} the next time it tests one ({@link #usable()}). It is
 * broken by the driving thread when the peer or the medium fails ({@link #breakConnection}): the first reason
 * stays, every pending request fails with it, and so does every later post.
 *
 * @param <R> the transport's request type
 */
public abstract class PooledConnection<R extends PooledRequest> implements AutoCloseable {
    /** Requests one connection accepts before posting returns null. */
    public static final int MAX_INFLIGHT_REQUESTS = 64;

    /** For messages: names the transport and both ends. */
    protected final String description;
    private final String transportName;
    private final long maxMessageBytes;
    /**
     * The pending requests, in posting order. A transport that keeps pending requests in more than one queue
     * overrides {@link #hasPending()} and {@link #failPending}.
     */
    protected final RequestFifo<R> queue = new RequestFifo<>(MAX_INFLIGHT_REQUESTS);
    private final RequestPool<R> pool;

    private volatile boolean closed;
    /** Why the connection broke, or null while it works; only the driving thread writes it. */
    private NetException.Reason brokenReason;
    private String brokenMessage;

    /**
     * @param transportName   the transport's name, for messages
     * @param maxMessageBytes the transport's largest message
     * @param description     names the transport and both ends, for messages
     * @param requests        makes one request object of the pool ({@link #MAX_INFLIGHT_REQUESTS} of them)
     */
    protected PooledConnection(String transportName, long maxMessageBytes, String description,
                               Supplier<R> requests) {
        this.transportName = transportName;
        this.maxMessageBytes = maxMessageBytes;
        this.description = description;
        this.pool = new RequestPool<>(MAX_INFLIGHT_REQUESTS, requests, this);
    }

    /**
     * Moves data for the pending requests as far as the transport allows, without blocking; called by
     * {@link PooledRequest#test()} on a pending request, on the thread that drives the connection.
     */
    protected abstract void progress();

    /** @return whether requests are pending */
    public boolean hasPending() {
        return !queue.isEmpty();
    }

    /** Fails every pending request with this reason and message, then calls {@link #pendingFailed()}. */
    protected void failPending(NetException.Reason reason, String message, Throwable cause) {
        queue.failAll(reason, message, cause);
        pendingFailed();
    }

    /** Drops per-message state once every pending request has failed. Does nothing unless overridden. */
    protected void pendingFailed() {
    }

    /**
     * Called once a break failed the pending requests: releases what a broken connection no longer needs. Does
     * nothing unless overridden.
     */
    protected void onBroken(NetException.Reason reason) {
    }

    /**
     * Checks a post's arguments and the connection, and takes a request object.
     *
     * @return the request, pending, or null when the in-flight limit is reached
     * @throws NetException with {@link NetException.Reason#CLOSED} when the connection is closed, or the reason it
     *                      broke with
     */
    protected final R take(MemorySegment buffer, long offset, long sizeBytes, long tag) {
        PostArgs.check(buffer, offset, sizeBytes, maxMessageBytes, transportName);
        checkOpen();
        return pool.take(buffer, offset, sizeBytes, tag);
    }

    /**
     * {@link #take}s a request object and appends it to {@link #queue}.
     *
     * @return the request, pending and queued, or null when the in-flight limit is reached
     * @throws NetException as {@link #take} does
     */
    protected final R takeQueued(MemorySegment buffer, long offset, long sizeBytes, long tag) {
        R request = take(buffer, offset, sizeBytes, tag);
        if (request != null) {
            queue.add(request);
        }
        return request;
    }

    /**
     * Checks the connection and takes a request object for a receive into a {@link RecvSink} rather than a buffer:
     * its {@link PooledRequest#segment()} is {@link MemorySegment#NULL}. The caller checked the capacity.
     *
     * @return the request, pending, or null when the in-flight limit is reached
     * @throws NetException as {@link #take} does
     */
    protected final R takeForSink(long capacityBytes, long tag) {
        checkOpen();
        return pool.take(MemorySegment.NULL, 0, capacityBytes, tag);
    }

    private void checkOpen() {
        if (closed) {
            throw new NetException(NetException.Reason.CLOSED, description + " is closed");
        }
        if (brokenReason != null) {
            throw new NetException(brokenReason, brokenMessage);
        }
    }

    /**
     * Called by the driving thread before it moves data.
     *
     * @return true when the connection can make progress; false when it is closed or broken (the pending requests
     *         have then been failed)
     */
    protected final boolean usable() {
        if (closed) {
            if (hasPending()) {
                failPending(NetException.Reason.CLOSED, description + " was closed while the request was pending",
                        null);
            }
            return false;
        }
        return brokenReason == null;
    }

    /** Marks the connection broken (the first reason stays) and fails every pending request. */
    protected final void breakConnection(NetException.Reason reason, String message, Throwable cause) {
        if (brokenReason == null) {
            brokenReason = reason;
            brokenMessage = message;
        }
        failPending(reason, message, cause);
        onBroken(reason);
    }

    /** {@link #breakConnection(NetException.Reason, String, Throwable)} without a cause. */
    protected final void breakConnection(NetException.Reason reason, String message) {
        breakConnection(reason, message, null);
    }

    /** @return whether the connection broke */
    protected final boolean isBroken() {
        return brokenReason != null;
    }

    /**
     * Marks the connection closed; any thread may call it, once or more.
     *
     * @return true for the call that closed it, which then releases what the connection holds
     */
    protected final boolean markClosed() {
        synchronized (this) {
            if (closed) {
                return false;
            }
            closed = true;
            return true;
        }
    }

    /** @return true once the connection was closed, from any thread */
    public final boolean isClosed() {
        return closed;
    }

    @Override
    public final String toString() {
        return description;
    }
}
