package io.jccl.metaroce.protocol;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.lang.foreign.MemorySegment;

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
     * Room in the sink's own send memory for one datagram of at most {@code maxLength} bytes to that destination and
     * path, for the core to build it in place and hand over by {@link #commit}: a DATA packet then crosses user
     * memory once (the payload's copy into it), not twice. Optional; the core falls back on {@link #transmit}.
     *
     * @return the offset in {@link #claimedBuffer()} where the datagram goes, or -1 when the sink has no such room
     */
    default int claim(long destination, int pathIndex, int maxLength) {
        return -1;
    }

    /** @return the memory of the last claim that succeeded */
    default MutableDirectBuffer claimedBuffer() {
        throw new IllegalStateException("nothing claimed");
    }

    /** @return the same memory as {@link #claimedBuffer()}, as a segment (to copy a payload in) */
    default MemorySegment claimedSegment() {
        throw new IllegalStateException("nothing claimed");
    }

    /**
     * Sends the datagram built at the last claim's offset.
     *
     * @param length its length, at most the claim's {@code maxLength}
     */
    default void commit(int length) {
        throw new IllegalStateException("nothing claimed");
    }

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
