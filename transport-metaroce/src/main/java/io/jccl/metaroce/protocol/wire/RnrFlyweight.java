package io.jccl.metaroce.protocol.wire;

import org.agrona.DirectBuffer;

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
public final class RnrFlyweight extends HeaderFlyweight {
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

    @Override
    public RnrFlyweight wrap(DirectBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public RnrFlyweight putHeader(int type, int flags, int pathId, int pathGeneration, int connectionId,
                                  int sessionTag, int bodyLength) {
        super.putHeader(type, flags, pathId, pathGeneration, connectionId, sessionTag, bodyLength);
        return this;
    }

    /** @return the stream of the SEND that found no receive */
    public int streamId() {
        return buffer.getInt(offset + STREAM_ID_FIELD_OFFSET, BYTE_ORDER);
    }

    /**
     * @param streamId the stream of the SEND that found no receive
     * @return this
     */
    public RnrFlyweight streamId(int streamId) {
        mutableBuffer.putInt(offset + STREAM_ID_FIELD_OFFSET, streamId, BYTE_ORDER);
        return this;
    }

    /** @return the message sequence of the SEND that found no receive */
    public int messageSequence() {
        return buffer.getInt(offset + MESSAGE_SEQUENCE_FIELD_OFFSET, BYTE_ORDER);
    }

    /**
     * @param messageSequence the message sequence of the SEND that found no receive
     * @return this
     */
    public RnrFlyweight messageSequence(int messageSequence) {
        mutableBuffer.putInt(offset + MESSAGE_SEQUENCE_FIELD_OFFSET, messageSequence, BYTE_ORDER);
        return this;
    }

    /** @return how long (ns) the sender should wait before resending the message */
    public long retryAfterNs() {
        return buffer.getLong(offset + RETRY_AFTER_NS_FIELD_OFFSET, BYTE_ORDER);
    }

    /**
     * @param retryAfterNs how long (ns) the sender should wait before resending the message
     * @return this
     */
    public RnrFlyweight retryAfterNs(long retryAfterNs) {
        mutableBuffer.putLong(offset + RETRY_AFTER_NS_FIELD_OFFSET, retryAfterNs, BYTE_ORDER);
        return this;
    }
}
