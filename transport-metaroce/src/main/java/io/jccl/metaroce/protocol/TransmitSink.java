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
     * memory once (the payload's copy into it), not twice. Optional; the core falls back on {@link #transmit}. A
     * claim not committed is given up by the next one.
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
     * Whether the last claim that succeeded may be sent by {@link #commitGather}: in pieces, its payload read from
     * the caller's (native) memory when the sink sends, so that it crosses user memory not at all.
     *
     * @return false unless the sink sends datagrams in pieces
     */
    default boolean gathers() {
        return false;
    }

    /**
     * Sends a datagram of three pieces: the header ({@code headerLength} bytes) and the trailer
     * ({@code trailerLength} bytes) built one after the other at the last claim's offset, and between them
     * {@code payloadLength} bytes of {@code payload}, read where they lie when the sink sends them (before the core
     * is stepped again). Only after {@link #gathers()} said yes.
     *
     * @param headerLength  bytes of the claim before the payload
     * @param payload       native memory holding the payload
     * @param payloadOffset where the payload starts in it
     * @param payloadLength its length
     * @param trailerLength bytes of the claim after the header that follow the payload
     */
    default void commitGather(int headerLength, MemorySegment payload, long payloadOffset, int payloadLength,
                              int trailerLength) {
        throw new IllegalStateException("this sink does not gather");
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
