package io.jccl.net;

/** A connection attempt in progress. */
public interface PendingConnect {
    /**
     * Never blocks.
     *
     * @return the connection once established, otherwise null
     * @throws NetException when the attempt failed
     */
    SendConnection poll();

    /** Gives up the attempt and releases what it holds; harmless after {@link #poll()} returned a connection. */
    void cancel();
}
