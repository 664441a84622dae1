package io.jccl.metaroce.protocol;

import org.agrona.DirectBuffer;

/** Where the core hands packets to be sent. The packet is only valid during the call: send or copy it. */
public interface TransmitSink {
    /**
     * @param destination the remote endpoint, as the driver identified it (see {@link Engine#onDatagram})
     * @param pathIndex   the logical path to send on (the driver's socket / source port for that path)
     * @param buffer      holds the packet
     * @param offset      where it starts
     * @param length      its length in bytes
     */
    void transmit(long destination, int pathIndex, DirectBuffer buffer, int offset, int length);

    /**
     * The core moved a path to a new route: the driver should send that path's packets from a new UDP source
     * port (its ECMP entropy) from now on.
     *
     * @param destination the remote endpoint
     * @param pathIndex   the path
     * @param generation  the path's new generation
     */
    default void reroute(long destination, int pathIndex, int generation) {
    }
}
