package io.jccl.metaroce.protocol;

import org.agrona.DirectBuffer;

/**
 * What a driver calls: the whole contract between the sans-IO core and the world. One thread at a time.
 * A driver loop is: hand in every datagram that arrived, call {@link #onTimeout} when {@link #nextTimeoutNs}
 * has passed, and drain {@link #pollTransmit}.
 */
public interface Engine {
    /**
     * A datagram arrived.
     *
     * @param nowNs       the driver's clock
     * @param source      the sending endpoint, as the driver identifies it (address + port hashed, a node id)
     * @param pathIndex   the local path (socket) it arrived on
     * @param buffer      the datagram
     * @param offset      where it starts
     * @param length      its length
     * @param ecnMarked   the IP header carried the ECN CE mark
     * @return null when the engine took it (placed, acknowledged, acted on, or a duplicate it acknowledges again),
     *         else why it was dropped (counted too): a driver learns nothing from a dropped datagram, e.g. not
     *         where a peer's path comes from
     */
    DropReason onDatagram(long nowNs, long source, int pathIndex, DirectBuffer buffer, int offset, int length,
                          boolean ecnMarked);

    /**
     * Time passed: run expired timers (retransmission, delayed ACKs, probes, pacing).
     *
     * @param nowNs the driver's clock
     */
    void onTimeout(long nowNs);

    /** @return when {@link #onTimeout} should next be called; {@link Long#MAX_VALUE} when nothing is pending */
    long nextTimeoutNs();

    /**
     * Hands every packet that may be sent now to {@code sink}.
     *
     * @param nowNs the driver's clock
     * @param sink  receives the packets
     * @return how many packets were handed over
     */
    int pollTransmit(long nowNs, TransmitSink sink);
}
