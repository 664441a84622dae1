package io.jccl.metaroce.protocol.wire;

import org.agrona.DirectBuffer;

/**
 * Flyweight over a HANDSHAKE_ACCEPT packet ({@link PacketType#HANDSHAKE_ACCEPT}), which accepts a connection: the
 * common header (connection id = the initiator's id, session tag 0, no flags), a 56-byte type header, no body, the
 * CRC. The MAC is written and checked by {@link HandshakeCrypto}.
 *
 * <pre>
 *  20  4  acceptor's connection id
 *  24 16  nonce              the acceptor's, random, fresh per accept
 *  40  4  session tag        the tag every later packet of the connection carries, both ways
 *  44 32  MAC                HMAC-SHA256, see HandshakeCrypto
 * </pre>
 */
public final class HandshakeAcceptFlyweight extends HeaderFlyweight {
    /** Offset of the 4-byte acceptor's connection id. */
    public static final int ACCEPTOR_CONNECTION_ID_FIELD_OFFSET = 20;
    /** Offset of the 16-byte acceptor's nonce. */
    public static final int NONCE_FIELD_OFFSET = 24;
    /** Length of the nonce. */
    public static final int NONCE_LENGTH = 16;
    /** Offset of the 4-byte granted session tag. */
    public static final int GRANTED_SESSION_TAG_FIELD_OFFSET = 40;
    /** Offset of the 32-byte MAC. */
    public static final int MAC_FIELD_OFFSET = 44;
    /** Length of the MAC. */
    public static final int MAC_LENGTH = 32;
    /** Length of the HANDSHAKE_ACCEPT type header. */
    public static final int TYPE_HEADER_LENGTH = 56;
    /** Length of a HANDSHAKE_ACCEPT datagram, CRC included. */
    public static final int FRAME_LENGTH = HEADER_LENGTH + TYPE_HEADER_LENGTH + CRC_LENGTH;

    /** An unwrapped flyweight: {@link #wrap} it over a packet before use, and reuse it for every packet. */
    public HandshakeAcceptFlyweight() {
    }

    @Override
    public HandshakeAcceptFlyweight wrap(DirectBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public HandshakeAcceptFlyweight putHeader(int type, int flags, int pathId, int pathGeneration, int connectionId,
                                              int sessionTag, int bodyLength) {
        super.putHeader(type, flags, pathId, pathGeneration, connectionId, sessionTag, bodyLength);
        return this;
    }

    /**
     * Writes the common header of a HANDSHAKE_ACCEPT (type, no flags, session tag 0, body 0).
     *
     * @param pathId                the path it is sent on (the one the INIT came on)
     * @param pathGeneration        that path's generation
     * @param initiatorConnectionId the initiator's id for the connection, from its INIT
     * @return this
     */
    public HandshakeAcceptFlyweight putHeader(int pathId, int pathGeneration, int initiatorConnectionId) {
        return putHeader(PacketType.HANDSHAKE_ACCEPT, Flags.NONE, pathId, pathGeneration, initiatorConnectionId, 0, 0);
    }

    /** @return the initiator's id for the connection: the common header's connection id */
    public int initiatorConnectionId() {
        return connectionId();
    }

    /** @return the acceptor's id for the connection (the initiator puts it in every later packet it sends) */
    public int acceptorConnectionId() {
        return buffer.getInt(offset + ACCEPTOR_CONNECTION_ID_FIELD_OFFSET, BYTE_ORDER);
    }

    /**
     * @param acceptorConnectionId the acceptor's id for the connection
     * @return this
     */
    public HandshakeAcceptFlyweight acceptorConnectionId(int acceptorConnectionId) {
        mutableBuffer.putInt(offset + ACCEPTOR_CONNECTION_ID_FIELD_OFFSET, acceptorConnectionId, BYTE_ORDER);
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
    public HandshakeAcceptFlyweight nonce(long nonceLow, long nonceHigh) {
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
    public HandshakeAcceptFlyweight putNonce(byte[] source, int index) {
        mutableBuffer.putBytes(offset + NONCE_FIELD_OFFSET, source, index, NONCE_LENGTH);
        return this;
    }

    /** @return the session tag the acceptor grants: every later packet of the connection carries it */
    public int grantedSessionTag() {
        return buffer.getInt(offset + GRANTED_SESSION_TAG_FIELD_OFFSET, BYTE_ORDER);
    }

    /**
     * @param grantedSessionTag the session tag every later packet of the connection carries
     * @return this
     */
    public HandshakeAcceptFlyweight grantedSessionTag(int grantedSessionTag) {
        mutableBuffer.putInt(offset + GRANTED_SESSION_TAG_FIELD_OFFSET, grantedSessionTag, BYTE_ORDER);
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
    public HandshakeAcceptFlyweight putMac(byte[] source, int index) {
        mutableBuffer.putBytes(offset + MAC_FIELD_OFFSET, source, index, MAC_LENGTH);
        return this;
    }
}
