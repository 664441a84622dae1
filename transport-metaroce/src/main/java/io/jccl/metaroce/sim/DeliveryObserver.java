package io.jccl.metaroce.sim;

/** Sees every datagram the fabric delivers, just before the destination node gets it (e.g. to measure rates). */
@FunctionalInterface
public interface DeliveryObserver {
    /**
     * @param nowNs       virtual time of delivery
     * @param source      the sending node
     * @param destination the receiving node
     * @param pathIndex   the path it travelled on
     * @param length      datagram bytes
     */
    void delivered(long nowNs, long source, long destination, int pathIndex, int length);
}
