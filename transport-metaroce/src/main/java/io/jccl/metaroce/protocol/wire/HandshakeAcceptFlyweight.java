package io.jccl.metaroce.protocol.wire;

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
public final class HandshakeAcceptFlyweight extends HandshakeFlyweight<HandshakeAcceptFlyweight> {
    /** Offset of the 4-byte acceptor's connection id. */
    public static final int ACCEPTOR_CONNECTION_ID_FIELD_OFFSET = 20;
    /** Offset of the 4-byte granted session tag. */
    public static final int GRANTED_SESSION_TAG_FIELD_OFFSET = 40;

    /** An unwrapped flyweight: {@link #wrap} it over a packet before use, and reuse it for every packet. */
    public HandshakeAcceptFlyweight() {
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
        return intField(ACCEPTOR_CONNECTION_ID_FIELD_OFFSET);
    }

    /**
     * @param acceptorConnectionId the acceptor's id for the connection
     * @return this
     */
    public HandshakeAcceptFlyweight acceptorConnectionId(int acceptorConnectionId) {
        putIntField(ACCEPTOR_CONNECTION_ID_FIELD_OFFSET, acceptorConnectionId);
        return this;
    }

    /** @return the session tag the acceptor grants: every later packet of the connection carries it */
    public int grantedSessionTag() {
        return intField(GRANTED_SESSION_TAG_FIELD_OFFSET);
    }

    /**
     * @param grantedSessionTag the session tag every later packet of the connection carries
     * @return this
     */
    public HandshakeAcceptFlyweight grantedSessionTag(int grantedSessionTag) {
        putIntField(GRANTED_SESSION_TAG_FIELD_OFFSET, grantedSessionTag);
        return this;
    }
}
