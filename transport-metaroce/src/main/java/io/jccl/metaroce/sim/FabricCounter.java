package io.jccl.metaroce.sim;

/** What the fabric counts (read with {@link Fabric#count}). */
public enum FabricCounter {
    /** Datagrams the nodes handed to the fabric. */
    TRANSMITTED,
    /** Datagrams delivered to a node (duplicates included). */
    DELIVERED,
    /** Datagram bytes delivered to nodes. */
    BYTES_DELIVERED,
    /** Tail drops: the packet did not fit a queue's buffer. */
    DROPPED_QUEUE_FULL,
    /** Drops by a route's random loss. */
    DROPPED_RANDOM_LOSS,
    /** Drops by a route's Gilbert–Elliott bursty loss. */
    DROPPED_BURST_LOSS,
    /** Drops by a black-holed route. */
    DROPPED_BLACK_HOLE,
    /** Drops while every route of a node pair was down. */
    DROPPED_ALL_PATHS_DOWN,
    /** Datagrams addressed to a node the simulator does not know. */
    DROPPED_UNKNOWN_DESTINATION,
    /** Datagrams delivered with the ECN CE mark (once per packet, however many queues marked it). */
    ECN_MARKED,
    /** Packets with a flipped bit. */
    CORRUPTED,
    /** Duplicates made. */
    DUPLICATED,
    /** Packets held back to arrive after later ones. */
    REORDERED,
    /** Paths moved to another route by a node's reroute request. */
    REROUTES
}
