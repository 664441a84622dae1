package io.jccl.metaroce.sim;

/** Sees every reroute a node asks the fabric for ({@link io.jccl.metaroce.protocol.TransmitSink#reroute}). */
@FunctionalInterface
public interface RerouteObserver {
    /**
     * @param nowNs       virtual time
     * @param source      the node that rerouted
     * @param destination the peer
     * @param pathIndex   the path
     * @param generation  the path's new generation, as the node gave it
     * @param fromRoute   the route the path was on
     * @param toRoute     the route it is on now
     */
    void rerouted(long nowNs, long source, long destination, int pathIndex, int generation, int fromRoute,
                  int toRoute);
}
