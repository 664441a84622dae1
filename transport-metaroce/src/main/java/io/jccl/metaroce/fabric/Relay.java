package io.jccl.metaroce.fabric;

/**
 * What both impairing relays ({@link ImpairmentRelay} between two endpoints, {@link ImpairmentProxy} for many) can
 * be asked once built: start, outages on a path, counters, close.
 */
public interface Relay extends AutoCloseable {
    /** Starts the relay's thread. */
    void start();

    /** Black-holes a path for a time window (by {@link System#nanoTime()}); each relay documents what it follows. */
    void blackHolePath(int path, long fromNs, long untilNs);

    /**
     * Makes a path flap: from {@code startNs} down for {@code downNs}, then up for {@code upNs}, repeating.
     *
     * @param cycles down-up cycles, 0: until {@link #stopFlaps()}
     */
    void flapPath(int path, long startNs, long upNs, long downNs, int cycles);

    /** Ends every flap schedule. */
    void stopFlaps();

    /** @return one counter (see {@link RelayCounters}) */
    long counter(int index);

    /** @return every counter, {@code name=value} on one line */
    String counters();

    /** Stops the thread and closes every socket. */
    @Override
    void close();
}
