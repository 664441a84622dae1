package io.jccl.net;

/**
 * What every transport's connection attempt shares: the outcome it settles on (the connection, the failure, or
 * cancelled) and the rules around it. Once settled, {@link #poll()} answers with that outcome and {@link #attempt()}
 * is not called again; a failure or a cancel {@linkplain #release() releases} what the attempt holds, once.
 * {@code poll} and {@code cancel} hold the attempt's lock, so a cancel never overlaps a step of the attempt.
 */
public abstract class AbstractPendingConnect implements PendingConnect {
    /** Names the attempt in messages, e.g. "shm connection of rank 2 to rank 0 (pid 17)". */
    protected final String description;
    private SendConnection connection;
    private NetException failure;
    private boolean cancelled;

    /** @param description names the attempt in messages */
    protected AbstractPendingConnect(String description) {
        this.description = description;
    }

    /**
     * Moves the attempt one step; never blocks. Called by {@link #poll()} until the attempt settles.
     *
     * @return the connection once established, otherwise null
     * @throws NetException when the attempt failed; {@link #release()} follows
     */
    protected abstract SendConnection attempt();

    /** Gives back what the attempt holds, after it failed or was cancelled. */
    protected abstract void release();

    /**
     * Called once by {@link #cancel()} before {@link #release()}: withdraws the attempt from the peer where it
     * reached it. Does nothing unless overridden.
     */
    protected void withdraw() {
    }

    @Override
    public final synchronized SendConnection poll() {
        if (connection != null) {
            return connection;
        }
        if (failure != null) {
            throw failure;
        }
        if (cancelled) {
            throw new NetException(NetException.Reason.CLOSED, description + " was cancelled");
        }
        try {
            connection = attempt();
        } catch (NetException e) {
            failure = e;
            release();
            throw e;
        }
        return connection;
    }

    @Override
    public final synchronized void cancel() {
        if (connection != null || failure != null || cancelled) {
            return;
        }
        cancelled = true;
        try {
            withdraw();
        } finally {
            release();
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
