package io.jccl.net;

import java.lang.foreign.MemorySegment;

/**
 * A peer's box lines as this process sees them: a few cache lines of the peer's memory that the peer writes and this
 * rank reads in place, for collectives too small to be worth messages (the core's box all-reduce: each rank publishes
 * its few bytes in a line, every rank reads every line and reduces). Offered by transports whose peers map each
 * other's memory (shm) through {@link SendConnection#boxPeer()}; the rank's own lines are
 * {@link NetTransport#boxLines()}. The transport gives the memory; what the lines hold is its user's business, but
 * for one rule: the first 8-byte word of each line is a number that only rises, and a change to one of those words
 * is what wakes a peer's sleeper ({@link NetTransport#awaitProgress}).
 */
public interface BoxPeer {
    /** Bytes of a rank's box lines: seven 64-byte cache lines, zeroed when the transport is created. */
    long BOX_BYTES = 448;

    /** @return the peer's box lines, {@link #BOX_BYTES} bytes, as this process maps them; only read them */
    MemorySegment lines();

    /**
     * Wakes the peer if a thread of it sleeps in {@link NetTransport#awaitProgress}; call right after publishing
     * into one's own lines (a sleeper looks at the first words of its peers' lines before it sleeps, so nothing is missed).
     */
    void wakeIfAsleep();
}
