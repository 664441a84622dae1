package io.jccl.metaroce.protocol.wire;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Objects;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The handshake MACs of wire format v1: HMAC-SHA256 with a key derived from the rendezvous secret.
 *
 * <p>Key: {@code HMAC-SHA256(key = rendezvous secret, message = ASCII "jccl-metaroce-v1 handshake")}, 32 bytes
 * ({@link #deriveHandshakeKey}).
 *
 * <p>MAC inputs, byte for byte (integers little-endian, nonces as their 16 wire bytes, labels ASCII without a
 * terminator):
 * <pre>
 * HANDSHAKE_INIT (27 bytes)                      HANDSHAKE_ACCEPT (50 bytes)
 *  0  4  "init"                                   0  6  "accept"
 *  4  4  initiator's connection id                6  4  initiator's connection id (common header's connection id)
 *  8 16  initiator's nonce                       10  4  acceptor's connection id
 * 24  1  paths                                   14 16  initiator's nonce (from its INIT)
 * 25  2  payload bytes                           30 16  acceptor's nonce
 *                                                46  4  granted session tag
 * </pre>
 * The 32-byte MAC goes in the packet's MAC field; the CRC trailer, computed after it, covers it.
 *
 * <p>One {@link Mac} is made per object and reused; verification compares in constant time
 * ({@link MessageDigest#isEqual}). Not thread-safe: one per thread. Allocation is acceptable here (the control path),
 * but signing and verifying allocate nothing themselves.
 */
public final class HandshakeCrypto {
    /** The message that derives the handshake key from the rendezvous secret. */
    public static final String KEY_DERIVATION_LABEL = "jccl-metaroce-v1 handshake";
    /** The JCA name of the MAC. */
    public static final String MAC_ALGORITHM = "HmacSHA256";
    /** Length of a derived handshake key. */
    public static final int KEY_LENGTH = 32;
    /** Length of a MAC. */
    public static final int MAC_LENGTH = 32;
    /** Length of the HANDSHAKE_INIT MAC input. */
    public static final int INIT_MAC_INPUT_LENGTH = 27;
    /** Length of the HANDSHAKE_ACCEPT MAC input. */
    public static final int ACCEPT_MAC_INPUT_LENGTH = 50;
    /** The shortest handshake key accepted (as {@code EndpointConfig} requires). */
    public static final int MIN_KEY_LENGTH = 16;

    private static final byte[] INIT_LABEL = "init".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ACCEPT_LABEL = "accept".getBytes(StandardCharsets.US_ASCII);

    private final Mac mac;
    private final byte[] input = new byte[64];
    private final UnsafeBuffer inputBuffer = new UnsafeBuffer(input);
    private final byte[] computed = new byte[MAC_LENGTH];
    private final byte[] received = new byte[MAC_LENGTH];

    /**
     * @param handshakeKey the key ({@link #deriveHandshakeKey}), at least 16 bytes; copied
     * @throws IllegalArgumentException when the key is shorter than 16 bytes
     */
    public HandshakeCrypto(byte[] handshakeKey) {
        Objects.requireNonNull(handshakeKey, "handshakeKey");
        if (handshakeKey.length < MIN_KEY_LENGTH) {
            throw new IllegalArgumentException("handshakeKey has " + handshakeKey.length + " bytes, needs at least "
                    + MIN_KEY_LENGTH);
        }
        this.mac = newMac(handshakeKey);
    }

    /**
     * @param rendezvousSecret the secret every endpoint of the job shares (not empty)
     * @return the 32-byte handshake key: HMAC-SHA256(secret, "jccl-metaroce-v1 handshake")
     * @throws IllegalArgumentException when the secret is empty
     */
    public static byte[] deriveHandshakeKey(byte[] rendezvousSecret) {
        Objects.requireNonNull(rendezvousSecret, "rendezvousSecret");
        if (rendezvousSecret.length == 0) {
            throw new IllegalArgumentException("rendezvousSecret is empty");
        }
        return newMac(rendezvousSecret).doFinal(KEY_DERIVATION_LABEL.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Computes a HANDSHAKE_INIT's MAC from its fields and writes it into its MAC field. Write the CRC afterwards.
     *
     * @param buffer holds the INIT, its fields written
     * @param offset where the packet starts
     */
    public void signInit(MutableDirectBuffer buffer, int offset) {
        computeMac(input, initMacInput(buffer, offset));
        buffer.putBytes(offset + HandshakeInitFlyweight.MAC_FIELD_OFFSET, computed, 0, MAC_LENGTH);
    }

    /**
     * @param buffer holds a HANDSHAKE_INIT that {@link PacketValidator} accepted
     * @param offset where the packet starts
     * @return whether its MAC is right
     */
    public boolean verifyInit(DirectBuffer buffer, int offset) {
        computeMac(input, initMacInput(buffer, offset));
        buffer.getBytes(offset + HandshakeInitFlyweight.MAC_FIELD_OFFSET, received, 0, MAC_LENGTH);
        return MessageDigest.isEqual(computed, received);
    }

    /**
     * Computes a HANDSHAKE_ACCEPT's MAC from its fields and the initiator's nonce, and writes it into its MAC field.
     * Write the CRC afterwards.
     *
     * @param buffer             holds the ACCEPT, its fields written (the common header's connection id is the
     *                           initiator's)
     * @param offset             where the packet starts
     * @param initiatorNonceLow  bytes 0-7 of the initiator's nonce, from its INIT ({@link HandshakeInitFlyweight#nonceLow()})
     * @param initiatorNonceHigh bytes 8-15 of the initiator's nonce ({@link HandshakeInitFlyweight#nonceHigh()})
     */
    public void signAccept(MutableDirectBuffer buffer, int offset, long initiatorNonceLow, long initiatorNonceHigh) {
        computeMac(input, acceptMacInput(buffer, offset, initiatorNonceLow, initiatorNonceHigh));
        buffer.putBytes(offset + HandshakeAcceptFlyweight.MAC_FIELD_OFFSET, computed, 0, MAC_LENGTH);
    }

    /**
     * @param buffer             holds a HANDSHAKE_ACCEPT that {@link PacketValidator} accepted
     * @param offset             where the packet starts
     * @param initiatorNonceLow  bytes 0-7 of the nonce this side sent in its INIT
     * @param initiatorNonceHigh bytes 8-15 of that nonce
     * @return whether its MAC is right
     */
    public boolean verifyAccept(DirectBuffer buffer, int offset, long initiatorNonceLow, long initiatorNonceHigh) {
        computeMac(input, acceptMacInput(buffer, offset, initiatorNonceLow, initiatorNonceHigh));
        buffer.getBytes(offset + HandshakeAcceptFlyweight.MAC_FIELD_OFFSET, received, 0, MAC_LENGTH);
        return MessageDigest.isEqual(computed, received);
    }

    private int initMacInput(DirectBuffer buffer, int offset) {
        final UnsafeBuffer in = inputBuffer;
        in.putBytes(0, INIT_LABEL);
        in.putInt(4, buffer.getInt(offset + HandshakeInitFlyweight.INITIATOR_CONNECTION_ID_FIELD_OFFSET,
                HeaderFlyweight.BYTE_ORDER), HeaderFlyweight.BYTE_ORDER);
        buffer.getBytes(offset + HandshakeInitFlyweight.NONCE_FIELD_OFFSET, input, 8,
                HandshakeInitFlyweight.NONCE_LENGTH);
        in.putByte(24, buffer.getByte(offset + HandshakeInitFlyweight.PATHS_FIELD_OFFSET));
        in.putShort(25, buffer.getShort(offset + HandshakeInitFlyweight.PAYLOAD_BYTES_FIELD_OFFSET,
                HeaderFlyweight.BYTE_ORDER), HeaderFlyweight.BYTE_ORDER);
        return INIT_MAC_INPUT_LENGTH;
    }

    private int acceptMacInput(DirectBuffer buffer, int offset, long initiatorNonceLow, long initiatorNonceHigh) {
        final UnsafeBuffer in = inputBuffer;
        in.putBytes(0, ACCEPT_LABEL);
        in.putInt(6, buffer.getInt(offset + HeaderFlyweight.CONNECTION_ID_FIELD_OFFSET, HeaderFlyweight.BYTE_ORDER),
                HeaderFlyweight.BYTE_ORDER);
        in.putInt(10, buffer.getInt(offset + HandshakeAcceptFlyweight.ACCEPTOR_CONNECTION_ID_FIELD_OFFSET,
                HeaderFlyweight.BYTE_ORDER), HeaderFlyweight.BYTE_ORDER);
        in.putLong(14, initiatorNonceLow, HeaderFlyweight.BYTE_ORDER);
        in.putLong(22, initiatorNonceHigh, HeaderFlyweight.BYTE_ORDER);
        buffer.getBytes(offset + HandshakeAcceptFlyweight.NONCE_FIELD_OFFSET, input, 30,
                HandshakeAcceptFlyweight.NONCE_LENGTH);
        in.putInt(46, buffer.getInt(offset + HandshakeAcceptFlyweight.GRANTED_SESSION_TAG_FIELD_OFFSET,
                HeaderFlyweight.BYTE_ORDER), HeaderFlyweight.BYTE_ORDER);
        return ACCEPT_MAC_INPUT_LENGTH;
    }

    private void computeMac(byte[] message, int length) {
        mac.update(message, 0, length);
        try {
            mac.doFinal(computed, 0);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 failed", e);
        }
    }

    private static Mac newMac(byte[] key) {
        try {
            final Mac m = Mac.getInstance(MAC_ALGORITHM);
            m.init(new SecretKeySpec(key, MAC_ALGORITHM));
            return m;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is unavailable", e);
        }
    }
}
