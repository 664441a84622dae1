package io.jccl.metaroce.protocol.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.jccl.metaroce.protocol.EndpointConfig;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The handshake MACs are exactly the spec's, verify, and fail on any change. */
class HandshakeCryptoTest {
    private static final byte[] SECRET = "rendezvous secret of job 42".getBytes(StandardCharsets.UTF_8);
    private static final byte[] KEY = HandshakeCrypto.deriveHandshakeKey(SECRET);

    private static byte[] hmac(byte[] key, byte[] message) throws Exception {
        final Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(message);
    }

    @Test
    void keyDerivationIsHmacOfTheLabel() throws Exception {
        final byte[] key = HandshakeCrypto.deriveHandshakeKey(SECRET);
        assertThat(key).hasSize(HandshakeCrypto.KEY_LENGTH)
                .isEqualTo(hmac(SECRET, "jccl-metaroce-v1 handshake".getBytes(StandardCharsets.US_ASCII)));
        assertThat(HandshakeCrypto.deriveHandshakeKey("another".getBytes(StandardCharsets.UTF_8))).isNotEqualTo(key);
        // usable as the endpoint's key
        assertThat(EndpointConfig.defaults(key).handshakeKey()).isEqualTo(key);
    }

    @Test
    void badKeysAndSecretsAreRefused() {
        assertThatThrownBy(() -> HandshakeCrypto.deriveHandshakeKey(new byte[0]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HandshakeCrypto(new byte[15])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HandshakeCrypto(null)).isInstanceOf(NullPointerException.class);
    }

    private static int writeInit(MutableDirectBuffer buffer, int offset, HandshakeCrypto crypto) {
        final HandshakeInitFlyweight init = new HandshakeInitFlyweight().wrap(buffer, offset).putHeader(3, 1)
                .initiatorConnectionId(0x11223344).nonce(0x0706050403020100L, 0x0F0E0D0C0B0A0908L)
                .paths(16).payloadBytes(4096);
        crypto.signInit(buffer, offset);
        return new Crc32c().finish(buffer, offset, init.lengthWithoutCrc());
    }

    private static int writeAccept(MutableDirectBuffer buffer, int offset, HandshakeCrypto crypto) {
        final HandshakeAcceptFlyweight accept = new HandshakeAcceptFlyweight().wrap(buffer, offset)
                .putHeader(3, 1, 0x11223344).acceptorConnectionId(0x55667788)
                .nonce(0x1716151413121110L, 0x1F1E1D1C1B1A1918L).grantedSessionTag(0xA5A5F00D);
        crypto.signAccept(buffer, offset, 0x0706050403020100L, 0x0F0E0D0C0B0A0908L);
        return new Crc32c().finish(buffer, offset, accept.lengthWithoutCrc());
    }

    /**
     * @param length the MAC input's length as the spec gives it
     * @param label  the label it starts with
     * @return a little-endian buffer for the MAC input, the label already in it
     */
    private static ByteBuffer macInput(int length, String label) {
        return ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN)
                .put(label.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Checks that the handshake carries the HMAC (with {@link #KEY}) of {@code input}, which must fill exactly
     * {@code inputLength} bytes.
     */
    private static void assertMacIsHmacOf(HandshakeFlyweight<?> handshake, ByteBuffer input, int inputLength)
            throws Exception {
        assertThat(input.position()).isEqualTo(inputLength);
        final byte[] mac = new byte[32];
        handshake.getMac(mac, 0);
        assertThat(mac).isEqualTo(hmac(KEY, input.array()));
    }

    @ParameterizedTest
    @EnumSource(BufferKind.class)
    void initMacIsTheDocumentedInput(BufferKind kind) throws Exception {
        final MutableDirectBuffer buffer = kind.allocate(90);
        final int length = writeInit(buffer, 7, new HandshakeCrypto(KEY));

        final ByteBuffer input = macInput(27, "init").putInt(0x11223344);
        for (int i = 0; i < 16; i++) {
            input.put((byte) i);
        }
        input.put((byte) 16).putShort((short) 4096);
        assertMacIsHmacOf(new HandshakeInitFlyweight().wrap(buffer, 7), input, HandshakeCrypto.INIT_MAC_INPUT_LENGTH);
        assertThat(new HandshakeCrypto(KEY).verifyInit(buffer, 7)).isTrue();
        assertThat(new PacketValidator().check(buffer, 7, length)).isNull();
    }

    @ParameterizedTest
    @EnumSource(BufferKind.class)
    void acceptMacIsTheDocumentedInput(BufferKind kind) throws Exception {
        final MutableDirectBuffer buffer = kind.allocate(90);
        final int length = writeAccept(buffer, 3, new HandshakeCrypto(KEY));

        final ByteBuffer input = macInput(50, "accept").putInt(0x11223344).putInt(0x55667788);
        for (int i = 0; i < 32; i++) {
            input.put((byte) i); // initiator's nonce 00..0f, then the acceptor's 10..1f
        }
        input.putInt(0xA5A5F00D);
        assertMacIsHmacOf(new HandshakeAcceptFlyweight().wrap(buffer, 3), input,
                HandshakeCrypto.ACCEPT_MAC_INPUT_LENGTH);
        final HandshakeCrypto crypto = new HandshakeCrypto(KEY);
        assertThat(crypto.verifyAccept(buffer, 3, 0x0706050403020100L, 0x0F0E0D0C0B0A0908L)).isTrue();
        assertThat(crypto.verifyAccept(buffer, 3, 0x0706050403020101L, 0x0F0E0D0C0B0A0908L)).isFalse();
        assertThat(crypto.verifyAccept(buffer, 3, 0x0706050403020100L, 0x8F0E0D0C0B0A0908L)).isFalse();
        assertThat(new PacketValidator().check(buffer, 3, length)).isNull();
    }

    @Test
    void anyChangedByteOfTheCoveredFieldsOrTheMacFailsVerification() {
        final HandshakeCrypto crypto = new HandshakeCrypto(KEY);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[80]);
        final SplittableRandom random = new SplittableRandom(5);

        writeInit(buffer, 0, crypto);
        // covered: initiator id 20-23, nonce 24-39, paths 40, payload size 42-43; the MAC 44-75
        for (int at = 20; at < 76; at++) {
            if (at == 41) {
                continue; // the reserved byte is not covered (the validator requires it to be 0)
            }
            final byte old = buffer.getByte(at);
            buffer.putByte(at, (byte) (old ^ (1 + random.nextInt(255))));
            assertThat(crypto.verifyInit(buffer, 0)).as("INIT byte %d changed", at).isFalse();
            buffer.putByte(at, old);
            assertThat(crypto.verifyInit(buffer, 0)).isTrue();
        }

        writeAccept(buffer, 0, crypto);
        // covered: the common header's connection id 8-11, acceptor id 20-23, nonce 24-39, tag 40-43; the MAC 44-75
        for (int at = 8; at < 76; at++) {
            if (at >= 12 && at < 20) {
                continue; // session tag, body length, reserved: not covered
            }
            final byte old = buffer.getByte(at);
            buffer.putByte(at, (byte) (old ^ (1 + random.nextInt(255))));
            assertThat(crypto.verifyAccept(buffer, 0, 0x0706050403020100L, 0x0F0E0D0C0B0A0908L))
                    .as("ACCEPT byte %d changed", at).isFalse();
            buffer.putByte(at, old);
        }
        assertThat(crypto.verifyAccept(buffer, 0, 0x0706050403020100L, 0x0F0E0D0C0B0A0908L)).isTrue();
    }

    @Test
    void anotherKeyFailsAndTheMacObjectIsReusable() {
        final HandshakeCrypto mine = new HandshakeCrypto(KEY);
        final HandshakeCrypto theirs = new HandshakeCrypto(HandshakeCrypto.deriveHandshakeKey(new byte[] {1}));
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[80]);
        for (int round = 0; round < 3; round++) {
            writeInit(buffer, 0, mine);
            assertThat(mine.verifyInit(buffer, 0)).isTrue();
            assertThat(theirs.verifyInit(buffer, 0)).isFalse();
            writeAccept(buffer, 0, theirs);
            assertThat(theirs.verifyAccept(buffer, 0, 0x0706050403020100L, 0x0F0E0D0C0B0A0908L)).isTrue();
            assertThat(mine.verifyAccept(buffer, 0, 0x0706050403020100L, 0x0F0E0D0C0B0A0908L)).isFalse();
        }
    }
}
