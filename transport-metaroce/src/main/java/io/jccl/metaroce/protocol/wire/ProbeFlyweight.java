package io.jccl.metaroce.protocol.wire;

/**
 * Flyweight over a PROBE ({@link PacketType#PROBE}) or PROBE_REPLY ({@link PacketType#PROBE_REPLY}) packet, which
 * share one layout: the common header, a 12-byte type header, no body, the CRC. A probe is sent on a failed or
 * re-routed path to test it; the reply goes back on the same path, echoing the probe's sequence and timestamp.
 *
 * <pre>
 *  20  4  probe sequence
 *  24  8  timestamp (ns)   PROBE: the sender's clock; PROBE_REPLY: the probe's timestamp, echoed
 * </pre>
 */
public final class ProbeFlyweight extends TypedFlyweight<ProbeFlyweight> {
    /** Offset of the 4-byte probe sequence. */
    public static final int PROBE_SEQUENCE_FIELD_OFFSET = 20;
    /** Offset of the 8-byte timestamp (ns). */
    public static final int TIMESTAMP_NS_FIELD_OFFSET = 24;
    /** Length of the PROBE / PROBE_REPLY type header. */
    public static final int TYPE_HEADER_LENGTH = 12;
    /** Length of a PROBE / PROBE_REPLY datagram, CRC included. */
    public static final int FRAME_LENGTH = HEADER_LENGTH + TYPE_HEADER_LENGTH + CRC_LENGTH;

    /** An unwrapped flyweight: {@link #wrap} it over a packet before use, and reuse it for every packet. */
    public ProbeFlyweight() {
    }

    /** @return whether the type is PROBE_REPLY (else PROBE) */
    public boolean isReply() {
        return type() == PacketType.PROBE_REPLY;
    }

    /** @return the probe's sequence number */
    public int probeSequence() {
        return intField(PROBE_SEQUENCE_FIELD_OFFSET);
    }

    /**
     * @param probeSequence the probe's sequence number
     * @return this
     */
    public ProbeFlyweight probeSequence(int probeSequence) {
        putIntField(PROBE_SEQUENCE_FIELD_OFFSET, probeSequence);
        return this;
    }

    /** @return PROBE: the sender's clock (ns) when sent; PROBE_REPLY: the probe's timestamp, echoed */
    public long timestampNs() {
        return longField(TIMESTAMP_NS_FIELD_OFFSET);
    }

    /**
     * @param timestampNs PROBE: the sender's clock (ns) now; PROBE_REPLY: the probe's timestamp
     * @return this
     */
    public ProbeFlyweight timestampNs(long timestampNs) {
        putLongField(TIMESTAMP_NS_FIELD_OFFSET, timestampNs);
        return this;
    }

    /** @return PROBE_REPLY: the echoed probe timestamp (the same field as {@link #timestampNs()}) */
    public long echoTimestampNs() {
        return timestampNs();
    }

    /**
     * @param echoTimestampNs PROBE_REPLY: the probe's timestamp
     * @return this
     */
    public ProbeFlyweight echoTimestampNs(long echoTimestampNs) {
        return timestampNs(echoTimestampNs);
    }
}
