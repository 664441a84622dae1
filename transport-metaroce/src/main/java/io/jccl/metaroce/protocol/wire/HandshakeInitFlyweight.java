package io.jccl.metaroce.protocol.wire;

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
 */
public final class HandshakeInitFlyweight extends HandshakeFlyweight<HandshakeInitFlyweight> {
    /** Offset of the 4-byte initiator's connection id. */
    public static final int INITIATOR_CONNECTION_ID_FIELD_OFFSET = 20;
    /** Offset of the 1-byte path count. */
    public static final int PATHS_FIELD_OFFSET = 40;
    /** Offset of the 1 reserved byte of the type header (0). */
    public static final int INIT_RESERVED_FIELD_OFFSET = 41;
    /** Offset of the 2-byte payload size. */
    public static final int PAYLOAD_BYTES_FIELD_OFFSET = 42;
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
        putUint8Field(INIT_RESERVED_FIELD_OFFSET, 0);
        return this;
    }

    /** @return the initiator's id for the connection (the acceptor puts it in the ACCEPT's common header) */
    public int initiatorConnectionId() {
        return intField(INITIATOR_CONNECTION_ID_FIELD_OFFSET);
    }

    /**
     * @param initiatorConnectionId the initiator's id for the connection
     * @return this
     */
    public HandshakeInitFlyweight initiatorConnectionId(int initiatorConnectionId) {
        putIntField(INITIATOR_CONNECTION_ID_FIELD_OFFSET, initiatorConnectionId);
        return this;
    }

    /** @return the paths the initiator will use, 0-255 (1-64 in a valid packet) */
    public int paths() {
        return uint8Field(PATHS_FIELD_OFFSET);
    }

    /**
     * @param paths the paths the initiator will use, 1-64
     * @return this
     */
    public HandshakeInitFlyweight paths(int paths) {
        putUint8Field(PATHS_FIELD_OFFSET, paths);
        return this;
    }

    /** @return the type header's reserved byte, 0-255 (0 in a valid packet) */
    public int initReserved() {
        return uint8Field(INIT_RESERVED_FIELD_OFFSET);
    }

    /**
     * @param reserved the type header's reserved byte (0 in a valid packet)
     * @return this
     */
    public HandshakeInitFlyweight initReserved(int reserved) {
        putUint8Field(INIT_RESERVED_FIELD_OFFSET, reserved);
        return this;
    }

    /** @return the initiator's largest DATA payload in bytes, 0-65535 (256-65000 in a valid packet) */
    public int payloadBytes() {
        return uint16Field(PAYLOAD_BYTES_FIELD_OFFSET);
    }

    /**
     * @param payloadBytes the initiator's largest DATA payload in bytes, 256-65000
     * @return this
     */
    public HandshakeInitFlyweight payloadBytes(int payloadBytes) {
        putUint16Field(PAYLOAD_BYTES_FIELD_OFFSET, payloadBytes);
        return this;
    }

}
