package io.jccl.metaroce.sim;

/**
 * Called by the {@link Simulator} after every interaction with a node (a datagram delivered, a timeout run, a
 * wake-up), before the node's packets are collected with {@code pollTransmit}: the place for the application on that
 * node to poll completions and post more work, at the same virtual instant.
 */
@FunctionalInterface
public interface NodeListener {
    /** Does nothing. */
    NodeListener NONE = nowNs -> { };

    /** @param nowNs virtual time */
    void onStep(long nowNs);
}
