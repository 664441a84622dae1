package io.jccl.metaroce.protocol.wire;

import org.agrona.DirectBuffer;

/**
 * Flyweight over a HANDSHAKE_INIT packet ({@link PacketType#HANDSHAKE_INIT}), which opens a connection: the common
 * header (connection id 0, session tag 0, no flags), a 56-byte type header, no body, the CRC. The MAC is written and
 * checked by {@link HandshakeCrypto}.
 *
 * <pre>
 *  20  4  initiator's connection id
 *  24 16  nonce              random, fresh per connection attempt
 *  40  1  paths              1-64: the paths the initiator will use
 *  41  1  reserved           0
 *  42  2  payload bytes      256-65000: the initiator's largest DATA payload
 *  44 32  MAC                HMAC-SHA256, see HandshakeCrypto
 * </pre>
 *
 * The nonce is 16 opaque bytes; {@link #nonceLow()} and {@link #nonceHigh()} read them as two little-endian longs
 * (bytes 0-7 and 8-15), so a nonce can be kept without an array.
 */
public final class HandshakeInitFlyweight extends HeaderFlyweight {
    /** Offset of the 4-byte initiator's connection id. */
    public static final int INITIATOR_CONNECTION_ID_FIELD_OFFSET = 20;
    /** Offset of the 16-byte nonce. */
    public static final int NONCE_FIELD_OFFSET = 24;
    /** Length of the nonce. */
    public static final int NONCE_LENGTH = 16;
    /** Offset of the 1-byte path count. */
    public static final int PATHS_FIELD_OFFSET = 40;
    /** Offset of the 1 reserved byte of the type header (0). */
    public static final int INIT_RESERVED_FIELD_OFFSET = 41;
    /** Offset of the 2-byte payload size. */
    public static final int PAYLOAD_BYTES_FIELD_OFFSET = 42;
    /** Offset of the 32-byte MAC. */
    public static final int MAC_FIELD_OFFSET = 44;
    /** Length of the MAC. */
    public static final int MAC_LENGTH = 32;
    /** Length of the HANDSHAKE_INIT type header. */
    public static final int TYPE_HEADER_LENGTH = 56;
    /** Length of a HANDSHAKE_INIT datagram, CRC included. */
    public static final int FRAME_LENGTH = HEADER_LENGTH + TYPE_HEADER_LENGTH + CRC_LENGTH;
    /** The fewest paths an initiator may offer. */
    public static final int MIN_PATHS = 1;
    /** The most paths an initiator may offer. */
    public static final int MAX_PATHS = MAX_PATH_ID + 1;
    /** The smallest payload size an initiator may offer. */
    public static final int MIN_PAYLOAD_BYTES = 256;
    /** The largest payload size an initiator may offer. */
    public static final int MAX_PAYLOAD_BYTES = MAX_PAYLOAD_LENGTH;

    /** An unwrapped flyweight: {@link #wrap} it over a packet before use, and reuse it for every packet. */
    public HandshakeInitFlyweight() {
    }

    @Override
    public HandshakeInitFlyweight wrap(DirectBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public HandshakeInitFlyweight putHeader(int type, int flags, int pathId, int pathGeneration, int connectionId,
                                            int sessionTag, int bodyLength) {
        super.putHeader(type, flags, pathId, pathGeneration, connectionId, sessionTag, bodyLength);
        return this;
    }

    /**
     * Writes the common header of a HANDSHAKE_INIT (type, no flags, connection id 0, session tag 0, body 0) and zeroes
     * the type header's reserved byte.
     *
     * @param pathId         the path it is sent on
     * @param pathGeneration that path's generation
     * @return this
     */
    public HandshakeInitFlyweight putHeader(int pathId, int pathGeneration) {
        putHeader(PacketType.HANDSHAKE_INIT, Flags.NONE, pathId, pathGeneration, 0, 0, 0);
        mutableBuffer.putByte(offset + INIT_RESERVED_FIELD_OFFSET, (byte) 0);
        return this;
    }

    /** @return the initiator's id for the connection (the acceptor puts it in the ACCEPT's common header) */
    public int initiatorConnectionId() {
        return buffer.getInt(offset + INITIATOR_CONNECTION_ID_FIELD_OFFSET, BYTE_ORDER);
    }

    /**
     * @param initiatorConnectionId the initiator's id for the connection
     * @return this
     */
    public HandshakeInitFlyweight initiatorConnectionId(int initiatorConnectionId) {
        mutableBuffer.putInt(offset + INITIATOR_CONNECTION_ID_FIELD_OFFSET, initiatorConnectionId, BYTE_ORDER);
        return this;
    }

    /** @return nonce bytes 0-7 as a little-endian long */
    public long nonceLow() {
        return buffer.getLong(offset + NONCE_FIELD_OFFSET, BYTE_ORDER);
    }

    /** @return nonce bytes 8-15 as a little-endian long */
    public long nonceHigh() {
        return buffer.getLong(offset + NONCE_FIELD_OFFSET + 8, BYTE_ORDER);
    }

    /**
     * @param nonceLow  nonce bytes 0-7, little-endian
     * @param nonceHigh nonce bytes 8-15, little-endian
     * @return this
     */
    public HandshakeInitFlyweight nonce(long nonceLow, long nonceHigh) {
        mutableBuffer.putLong(offset + NONCE_FIELD_OFFSET, nonceLow, BYTE_ORDER);
        mutableBuffer.putLong(offset + NONCE_FIELD_OFFSET + 8, nonceHigh, BYTE_ORDER);
        return this;
    }

    /**
     * @param destination receives the 16 nonce bytes
     * @param index       where they go
     */
    public void getNonce(byte[] destination, int index) {
        buffer.getBytes(offset + NONCE_FIELD_OFFSET, destination, index, NONCE_LENGTH);
    }

    /**
     * @param source holds 16 nonce bytes
     * @param index  where they start
     * @return this
     */
    public HandshakeInitFlyweight putNonce(byte[] source, int index) {
        mutableBuffer.putBytes(offset + NONCE_FIELD_OFFSET, source, index, NONCE_LENGTH);
        return this;
    }

    /** @return the paths the initiator will use, 0-255 (1-64 in a valid packet) */
    public int paths() {
        return buffer.getByte(offset + PATHS_FIELD_OFFSET) & 0xFF;
    }

    /**
     * @param paths the paths the initiator will use, 1-64
     * @return this
     */
    public HandshakeInitFlyweight paths(int paths) {
        mutableBuffer.putByte(offset + PATHS_FIELD_OFFSET, (byte) paths);
        return this;
    }

    /** @return the type header's reserved byte, 0-255 (0 in a valid packet) */
    public int initReserved() {
        return buffer.getByte(offset + INIT_RESERVED_FIELD_OFFSET) & 0xFF;
    }

    /**
     * @param reserved the type header's reserved byte (0 in a valid packet)
     * @return this
     */
    public HandshakeInitFlyweight initReserved(int reserved) {
        mutableBuffer.putByte(offset + INIT_RESERVED_FIELD_OFFSET, (byte) reserved);
        return this;
    }

    /** @return the initiator's largest DATA payload in bytes, 0-65535 (256-65000 in a valid packet) */
    public int payloadBytes() {
        return buffer.getShort(offset + PAYLOAD_BYTES_FIELD_OFFSET, BYTE_ORDER) & 0xFFFF;
    }

    /**
     * @param payloadBytes the initiator's largest DATA payload in bytes, 256-65000
     * @return this
     */
    public HandshakeInitFlyweight payloadBytes(int payloadBytes) {
        mutableBuffer.putShort(offset + PAYLOAD_BYTES_FIELD_OFFSET, (short) payloadBytes, BYTE_ORDER);
        return this;
    }

    /**
     * @param destination receives the 32 MAC bytes
     * @param index       where they go
     */
    public void getMac(byte[] destination, int index) {
        buffer.getBytes(offset + MAC_FIELD_OFFSET, destination, index, MAC_LENGTH);
    }

    /**
     * @param source holds 32 MAC bytes
     * @param index  where they start
     * @return this
     */
    public HandshakeInitFlyweight putMac(byte[] source, int index) {
        mutableBuffer.putBytes(offset + MAC_FIELD_OFFSET, source, index, MAC_LENGTH);
        return this;
    }
}
