package io.jccl.metaroce.protocol.wire;

/**
 * The fields HANDSHAKE_INIT and HANDSHAKE_ACCEPT share at the same offsets: the sender's 16-byte random nonce and the
 * 32-byte MAC that ends the type header (written and checked by {@link HandshakeCrypto}). The nonce is 16 opaque
 * bytes; {@link #nonceLow()} and {@link #nonceHigh()} read them as two little-endian longs (bytes 0-7 and 8-15), so a
 * nonce can be kept without an array.
 *
 * @param <F> the handshake flyweight itself
 */
public abstract class HandshakeFlyweight<F extends HandshakeFlyweight<F>> extends TypedFlyweight<F> {
    /** Offset of the 16-byte nonce. */
    public static final int NONCE_FIELD_OFFSET = 24;
    /** Length of the nonce. */
    public static final int NONCE_LENGTH = 16;
    /** Offset of the 32-byte MAC. */
    public static final int MAC_FIELD_OFFSET = 44;
    /** Length of the MAC. */
    public static final int MAC_LENGTH = 32;
    /** Length of a handshake type header: both end with the MAC. */
    public static final int TYPE_HEADER_LENGTH = MAC_FIELD_OFFSET + MAC_LENGTH - HEADER_LENGTH;
    /** Length of a handshake datagram, CRC included. */
    public static final int FRAME_LENGTH = HEADER_LENGTH + TYPE_HEADER_LENGTH + CRC_LENGTH;

    /** Only the two handshake flyweights extend it. */
    HandshakeFlyweight() {
    }

    /** @return nonce bytes 0-7 as a little-endian long */
    public final long nonceLow() {
        return longField(NONCE_FIELD_OFFSET);
    }

    /** @return nonce bytes 8-15 as a little-endian long */
    public final long nonceHigh() {
        return longField(NONCE_FIELD_OFFSET + 8);
    }

    /**
     * @param nonceLow  nonce bytes 0-7, little-endian
     * @param nonceHigh nonce bytes 8-15, little-endian
     * @return this
     */
    public final F nonce(long nonceLow, long nonceHigh) {
        putLongField(NONCE_FIELD_OFFSET, nonceLow);
        putLongField(NONCE_FIELD_OFFSET + 8, nonceHigh);
        return self();
    }

    /**
     * @param destination receives the 16 nonce bytes
     * @param index       where they go
     */
    public final void getNonce(byte[] destination, int index) {
        buffer.getBytes(offset + NONCE_FIELD_OFFSET, destination, index, NONCE_LENGTH);
    }

    /**
     * @param source holds 16 nonce bytes
     * @param index  where they start
     * @return this
     */
    public final F putNonce(byte[] source, int index) {
        mutableBuffer.putBytes(offset + NONCE_FIELD_OFFSET, source, index, NONCE_LENGTH);
        return self();
    }

    /**
     * @param destination receives the 32 MAC bytes
     * @param index       where they go
     */
    public final void getMac(byte[] destination, int index) {
        buffer.getBytes(offset + MAC_FIELD_OFFSET, destination, index, MAC_LENGTH);
    }

    /**
     * @param source holds 32 MAC bytes
     * @param index  where they start
     * @return this
     */
    public final F putMac(byte[] source, int index) {
        mutableBuffer.putBytes(offset + MAC_FIELD_OFFSET, source, index, MAC_LENGTH);
        return self();
    }
}
