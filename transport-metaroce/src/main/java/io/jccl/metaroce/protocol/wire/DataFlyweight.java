package io.jccl.metaroce.protocol.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over a DATA packet: WRITE ({@link PacketType#WRITE}) or SEND ({@link PacketType#SEND}), which share one
 * layout: the common header, a 44-byte type header, then {@code bodyLength} bytes of payload and the CRC. Fields
 * whose meaning differs between the two have an accessor for each meaning over the same bytes:
 * {@link #writeId()}/{@link #messageSequence()} (the {@code message} field) and {@link #regionKey()}/{@link #streamId()}
 * (the {@code target} field).
 *
 * <pre>
 *  20  4  PSN              the path's packet sequence number
 *  24  8  timestamp (ns)   sender's clock when sent, echoed by the ACK
 *  32  4  message          WRITE: write id; SEND: message sequence number on its stream
 *  36  4  target           WRITE: region key; SEND: stream id
 *  40  8  message offset   byte offset of this payload within the message
 *  48  8  message length   total bytes of the message
 *  56  8  base             WRITE: region offset where the message starts; SEND: 0
 *  64  n  payload
 * 64+n  4  immediate        only with {@link Flags#IMMEDIATE} (a WRITE's last packet); counted in the body length
 * </pre>
 */
public final class DataFlyweight extends TypedFlyweight<DataFlyweight> {
    /** Offset of the 4-byte PSN. */
    public static final int PSN_FIELD_OFFSET = 20;
    /** Offset of the 8-byte send timestamp (ns). */
    public static final int TIMESTAMP_NS_FIELD_OFFSET = 24;
    /** Offset of the 4-byte message field (write id or message sequence). */
    public static final int MESSAGE_FIELD_OFFSET = 32;
    /** Offset of the 4-byte target field (region key or stream id). */
    public static final int TARGET_FIELD_OFFSET = 36;
    /** Offset of the 8-byte offset of the payload within the message. */
    public static final int MESSAGE_OFFSET_FIELD_OFFSET = 40;
    /** Offset of the 8-byte message length. */
    public static final int MESSAGE_LENGTH_FIELD_OFFSET = 48;
    /** Offset of the 8-byte base (WRITE: region offset of the message's start; SEND: 0). */
    public static final int BASE_FIELD_OFFSET = 56;
    /** Offset of the payload: the common header plus the DATA type header. */
    public static final int PAYLOAD_FIELD_OFFSET = 64;
    /** Length of the immediate a WRITE's last packet may carry after its payload ({@link Flags#IMMEDIATE}). */
    public static final int IMMEDIATE_LENGTH = 4;
    /** Length of the DATA type header. */
    public static final int TYPE_HEADER_LENGTH = 44;
    /** Length of both headers: where the payload starts. */
    public static final int DATA_HEADER_LENGTH = HEADER_LENGTH + TYPE_HEADER_LENGTH;
    /** The shortest DATA datagram: headers and the CRC (no payload: only for an empty message). */
    public static final int MIN_FRAME_LENGTH = DATA_HEADER_LENGTH + CRC_LENGTH;
    /** The longest DATA datagram: headers, {@link #MAX_PAYLOAD_LENGTH} bytes of payload and the CRC. */
    public static final int MAX_FRAME_LENGTH = DATA_HEADER_LENGTH + MAX_PAYLOAD_LENGTH + CRC_LENGTH;

    /** An unwrapped flyweight: {@link #wrap} it over a packet before use, and reuse it for every packet. */
    public DataFlyweight() {
    }

    /** @return whether the type is WRITE */
    public boolean isWrite() {
        return type() == PacketType.WRITE;
    }

    /** @return whether the type is SEND */
    public boolean isSend() {
        return type() == PacketType.SEND;
    }

    /** @return the path's packet sequence number */
    public int psn() {
        return intField(PSN_FIELD_OFFSET);
    }

    /**
     * @param psn the path's packet sequence number
     * @return this
     */
    public DataFlyweight psn(int psn) {
        putIntField(PSN_FIELD_OFFSET, psn);
        return this;
    }

    /** @return the sender's clock (ns) when the packet was sent */
    public long timestampNs() {
        return longField(TIMESTAMP_NS_FIELD_OFFSET);
    }

    /**
     * @param timestampNs the sender's clock (ns) now
     * @return this
     */
    public DataFlyweight timestampNs(long timestampNs) {
        putLongField(TIMESTAMP_NS_FIELD_OFFSET, timestampNs);
        return this;
    }

    /** @return the message field: {@link #writeId()} of a WRITE, {@link #messageSequence()} of a SEND */
    public int message() {
        return intField(MESSAGE_FIELD_OFFSET);
    }

    /**
     * @param message the message field
     * @return this
     */
    public DataFlyweight message(int message) {
        putIntField(MESSAGE_FIELD_OFFSET, message);
        return this;
    }

    /** @return WRITE: the sender's write id on this connection (the {@code message} field) */
    public int writeId() {
        return message();
    }

    /**
     * @param writeId the sender's write id on this connection
     * @return this
     */
    public DataFlyweight writeId(int writeId) {
        return message(writeId);
    }

    /** @return SEND: the message's sequence number on its stream (the {@code message} field) */
    public int messageSequence() {
        return message();
    }

    /**
     * @param messageSequence the message's sequence number on its stream
     * @return this
     */
    public DataFlyweight messageSequence(int messageSequence) {
        return message(messageSequence);
    }

    /** @return the target field: {@link #regionKey()} of a WRITE, {@link #streamId()} of a SEND */
    public int target() {
        return intField(TARGET_FIELD_OFFSET);
    }

    /**
     * @param target the target field
     * @return this
     */
    public DataFlyweight target(int target) {
        putIntField(TARGET_FIELD_OFFSET, target);
        return this;
    }

    /** @return WRITE: the key of the region written (the {@code target} field) */
    public int regionKey() {
        return target();
    }

    /**
     * @param regionKey the key of the region written
     * @return this
     */
    public DataFlyweight regionKey(int regionKey) {
        return target(regionKey);
    }

    /** @return SEND: the stream the message belongs to (the {@code target} field) */
    public int streamId() {
        return target();
    }

    /**
     * @param streamId the stream the message belongs to
     * @return this
     */
    public DataFlyweight streamId(int streamId) {
        return target(streamId);
    }

    /** @return the byte offset of this packet's payload within its message */
    public long messageOffset() {
        return longField(MESSAGE_OFFSET_FIELD_OFFSET);
    }

    /**
     * @param messageOffset the byte offset of this packet's payload within its message
     * @return this
     */
    public DataFlyweight messageOffset(long messageOffset) {
        putLongField(MESSAGE_OFFSET_FIELD_OFFSET, messageOffset);
        return this;
    }

    /** @return the message's total length in bytes */
    public long messageLength() {
        return longField(MESSAGE_LENGTH_FIELD_OFFSET);
    }

    /**
     * @param messageLength the message's total length in bytes
     * @return this
     */
    public DataFlyweight messageLength(long messageLength) {
        putLongField(MESSAGE_LENGTH_FIELD_OFFSET, messageLength);
        return this;
    }

    /** @return WRITE: the region offset where the message starts; SEND: 0 */
    public long base() {
        return longField(BASE_FIELD_OFFSET);
    }

    /**
     * @param base WRITE: the region offset where the message starts; SEND: 0
     * @return this
     */
    public DataFlyweight base(long base) {
        putLongField(BASE_FIELD_OFFSET, base);
        return this;
    }

    /** @return where the payload starts in the wrapped buffer (an absolute index, not relative to the packet) */
    public int payloadIndex() {
        return offset + PAYLOAD_FIELD_OFFSET;
    }

    /** @return whether the packet carries an immediate ({@link Flags#IMMEDIATE}: a WRITE's last packet) */
    public boolean hasImmediate() {
        return (flags() & Flags.IMMEDIATE) != 0;
    }

    /** @return the payload length in bytes (the body length, less the immediate's 4 bytes when it carries one) */
    public int payloadLength() {
        return hasImmediate() ? bodyLength() - IMMEDIATE_LENGTH : bodyLength();
    }

    /** @return the immediate after the payload (only meaningful when {@link #hasImmediate()}) */
    public int immediate() {
        return buffer.getInt(payloadIndex() + payloadLength(), BYTE_ORDER);
    }

    /**
     * Writes the immediate after a payload already in place, sets {@link Flags#IMMEDIATE} and counts the 4 bytes in
     * the body length. Call after {@link #putPayload} (or after setting the body length to the payload's).
     *
     * @param immediate the value
     * @return this
     */
    public DataFlyweight putImmediate(int immediate) {
        int payload = bodyLength();
        mutableBuffer.putInt(payloadIndex() + payload, immediate, BYTE_ORDER);
        flags(flags() | Flags.IMMEDIATE);
        bodyLength(payload + IMMEDIATE_LENGTH);
        return this;
    }

    /**
     * Copies a payload into the packet and sets the body length to its length.
     *
     * @param source        holds the payload
     * @param sourceIndex   where it starts in {@code source}
     * @param payloadLength its length in bytes, 0 (only for an empty message) to {@link #MAX_PAYLOAD_LENGTH}
     * @return this
     */
    public DataFlyweight putPayload(DirectBuffer source, int sourceIndex, int payloadLength) {
        mutableBuffer.putBytes(offset + PAYLOAD_FIELD_OFFSET, source, sourceIndex, payloadLength);
        bodyLength(payloadLength);
        return this;
    }

    /**
     * Copies the payload out.
     *
     * @param destination      receives it ({@link #payloadLength()} bytes)
     * @param destinationIndex where it goes in {@code destination}
     */
    public void getPayload(MutableDirectBuffer destination, int destinationIndex) {
        buffer.getBytes(offset + PAYLOAD_FIELD_OFFSET, destination, destinationIndex, bodyLength());
    }
}
