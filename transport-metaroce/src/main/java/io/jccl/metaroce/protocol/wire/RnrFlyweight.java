package io.jccl.metaroce.protocol.wire;

/**
 * Flyweight over an RNR (receiver-not-ready) packet ({@link PacketType#RNR}): a SEND arrived for a message with no
 * posted receive, and the sender should retry it later. The common header, a 16-byte type header, no body, the CRC.
 *
 * <pre>
 *  20  4  stream id
 *  24  4  message sequence
 *  28  8  retry after (ns)   how long the sender should wait before resending the message
 * </pre>
 */
public final class RnrFlyweight extends TypedFlyweight<RnrFlyweight> {
    /** Offset of the 4-byte stream id. */
    public static final int STREAM_ID_FIELD_OFFSET = 20;
    /** Offset of the 4-byte message sequence. */
    public static final int MESSAGE_SEQUENCE_FIELD_OFFSET = 24;
    /** Offset of the 8-byte retry-after delay (ns). */
    public static final int RETRY_AFTER_NS_FIELD_OFFSET = 28;
    /** Length of the RNR type header. */
    public static final int TYPE_HEADER_LENGTH = 16;
    /** Length of an RNR datagram, CRC included. */
    public static final int FRAME_LENGTH = HEADER_LENGTH + TYPE_HEADER_LENGTH + CRC_LENGTH;

    /** An unwrapped flyweight: {@link #wrap} it over a packet before use, and reuse it for every packet. */
    public RnrFlyweight() {
    }

    /** @return the stream of the SEND that found no receive */
    public int streamId() {
        return intField(STREAM_ID_FIELD_OFFSET);
    }

    /**
     * @param streamId the stream of the SEND that found no receive
     * @return this
     */
    public RnrFlyweight streamId(int streamId) {
        putIntField(STREAM_ID_FIELD_OFFSET, streamId);
        return this;
    }

    /** @return the message sequence of the SEND that found no receive */
    public int messageSequence() {
        return intField(MESSAGE_SEQUENCE_FIELD_OFFSET);
    }

    /**
     * @param messageSequence the message sequence of the SEND that found no receive
     * @return this
     */
    public RnrFlyweight messageSequence(int messageSequence) {
        putIntField(MESSAGE_SEQUENCE_FIELD_OFFSET, messageSequence);
        return this;
    }

    /** @return how long (ns) the sender should wait before resending the message */
    public long retryAfterNs() {
        return longField(RETRY_AFTER_NS_FIELD_OFFSET);
    }

    /**
     * @param retryAfterNs how long (ns) the sender should wait before resending the message
     * @return this
     */
    public RnrFlyweight retryAfterNs(long retryAfterNs) {
        putLongField(RETRY_AFTER_NS_FIELD_OFFSET, retryAfterNs);
        return this;
    }
}
