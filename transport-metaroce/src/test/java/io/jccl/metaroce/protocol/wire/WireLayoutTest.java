package io.jccl.metaroce.protocol.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.function.Function;
import java.util.zip.CRC32C;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The flyweights write exactly the bytes of the spec's tables ({@code docs/metaroce-wire.md}): each reference packet
 * here is built field by field from the tables, independently of the flyweights, and its CRC with
 * {@link java.util.zip.CRC32C}.
 */
class WireLayoutTest {
    /** The spec's worked example: a WRITE with a 4-byte payload (also in docs/metaroce-wire.md). */
    static final String EXAMPLE_WRITE_HEX = """
            4d 52 01 01 03 05 02 00 04 03 02 01 d4 c3 b2 a1
            04 00 00 00 10 00 00 00 00 ca 9a 3b 00 00 00 00
            07 00 00 00 2a 00 00 00 00 10 00 00 00 00 00 00
            04 10 00 00 00 00 00 00 00 00 08 00 00 00 00 00
            de ad be ef 9d fe 05 9d
            """;

    /** Builds a packet byte by byte, little-endian, from the spec's tables. */
    private static final class Reference {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Reference le(long value, int size) {
            for (int i = 0; i < size; i++) {
                out.write((int) (value >>> (8 * i)) & 0xFF);
            }
            return this;
        }

        Reference bytes(byte[] b) {
            out.writeBytes(b);
            return this;
        }

        Reference header(int type, int flags, int path, int generation, int connection, int tag, int body) {
            return le(0x524D, 2).le(1, 1).le(type, 1).le(flags, 1).le(path, 1).le(generation, 2).le(connection, 4)
                    .le(tag, 4).le(body, 2).le(0, 2);
        }

        byte[] withCrc() {
            final byte[] b = out.toByteArray();
            final CRC32C crc = new CRC32C();
            crc.update(b);
            final ByteArrayOutputStream all = new ByteArrayOutputStream();
            all.writeBytes(b);
            final long value = crc.getValue();
            for (int i = 0; i < 4; i++) {
                all.write((int) (value >>> (8 * i)) & 0xFF);
            }
            return all.toByteArray();
        }
    }

    private static byte[] packet(MutableDirectBuffer buffer, int offset, int length) {
        final byte[] b = new byte[length];
        buffer.getBytes(offset, b, 0, length);
        return b;
    }

    /**
     * Checks that {@code write} puts exactly {@code expected} into a buffer: it wraps a flyweight at {@code offset}
     * of a buffer that ends with the packet and fills in the fields; the CRC is added here.
     */
    private static void assertWrites(byte[] expected, int offset, Function<UnsafeBuffer, HeaderFlyweight> write) {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[offset + expected.length]);
        final HeaderFlyweight packet = write.apply(buffer);
        new Crc32c().finish(buffer, offset, packet.lengthWithoutCrc());
        assertThat(packet(buffer, offset, expected.length)).isEqualTo(expected);
    }

    private static byte[] seq(int n, int start) {
        final byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (start + i);
        }
        return b;
    }

    @Test
    void theMagicIsTheBytesMR() {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[20]);
        new HeaderFlyweight().wrap(buffer, 0).putHeader(1, 0, 0, 0, 0, 0, 0);
        assertThat(new String(packet(buffer, 0, 2), java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("MR");
    }

    @Test
    void offsetsAndLengthsMatchTheSpec() {
        assertThat(new int[] {HeaderFlyweight.HEADER_LENGTH, DataFlyweight.DATA_HEADER_LENGTH,
                DataFlyweight.TYPE_HEADER_LENGTH, AckFlyweight.TYPE_HEADER_LENGTH, ProbeFlyweight.TYPE_HEADER_LENGTH,
                CloseFlyweight.TYPE_HEADER_LENGTH, RnrFlyweight.TYPE_HEADER_LENGTH})
                .containsExactly(20, 64, 44, 56, 12, 4, 16);
        assertThat(AckFlyweight.SACK_FIELD_OFFSET + AckFlyweight.SACK_LENGTH)
                .isEqualTo(HeaderFlyweight.HEADER_LENGTH + AckFlyweight.TYPE_HEADER_LENGTH);
        assertThat(HandshakeInitFlyweight.MAC_FIELD_OFFSET + HandshakeInitFlyweight.MAC_LENGTH)
                .isEqualTo(HeaderFlyweight.HEADER_LENGTH + HandshakeInitFlyweight.TYPE_HEADER_LENGTH);
        assertThat(HandshakeAcceptFlyweight.MAC_FIELD_OFFSET + HandshakeAcceptFlyweight.MAC_LENGTH)
                .isEqualTo(HeaderFlyweight.HEADER_LENGTH + HandshakeAcceptFlyweight.TYPE_HEADER_LENGTH);
        assertThat(new int[] {AckFlyweight.FRAME_LENGTH, HandshakeInitFlyweight.FRAME_LENGTH,
                HandshakeAcceptFlyweight.FRAME_LENGTH, ProbeFlyweight.FRAME_LENGTH, CloseFlyweight.FRAME_LENGTH,
                RnrFlyweight.FRAME_LENGTH, DataFlyweight.MAX_FRAME_LENGTH})
                .containsExactly(80, 80, 80, 36, 28, 40, 65_068);
    }

    @ParameterizedTest
    @EnumSource(BufferKind.class)
    void writeMatchesTheSpecExample(BufferKind kind) {
        final byte[] expected = HexFormat.ofDelimiter(" ").parseHex(EXAMPLE_WRITE_HEX.replace("\n", " ").strip());
        final Reference reference = new Reference()
                .header(PacketType.WRITE, Flags.LAST | Flags.ACK_REQUESTED, 5, 2, 0x01020304, 0xA1B2C3D4, 4)
                .le(16, 4).le(1_000_000_000L, 8).le(7, 4).le(42, 4).le(4096, 8).le(4100, 8).le(0x80000, 8)
                .bytes(new byte[] {(byte) 0xDE, (byte) 0xAD, (byte) 0xBE, (byte) 0xEF});
        assertThat(reference.withCrc()).as("the spec's table and its example").isEqualTo(expected);

        final int offset = 3;
        final MutableDirectBuffer buffer = kind.allocate(offset + expected.length);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[] {(byte) 0xDE, (byte) 0xAD, (byte) 0xBE, (byte) 0xEF});
        final DataFlyweight d = new DataFlyweight().wrap(buffer, offset)
                .putHeader(PacketType.WRITE, Flags.LAST | Flags.ACK_REQUESTED, 5, 2, 0x01020304, 0xA1B2C3D4, 0)
                .psn(16).timestampNs(1_000_000_000L).writeId(7).regionKey(42).messageOffset(4096).messageLength(4100)
                .base(0x80000).putPayload(payload, 0, 4);
        final int length = new Crc32c().finish(buffer, offset, d.lengthWithoutCrc());
        assertThat(length).isEqualTo(expected.length);
        assertThat(packet(buffer, offset, length)).isEqualTo(expected);
        assertThat(new PacketValidator().check(buffer, offset, length)).isNull();
    }

    @Test
    void theSpecShowsTheExample() throws IOException {
        Path spec = Path.of("../docs/metaroce-wire.md");
        if (!Files.exists(spec)) {
            spec = Path.of("docs/metaroce-wire.md");
        }
        final String text = Files.readString(spec);
        assertThat(text).contains(EXAMPLE_WRITE_HEX.strip());
    }

    @Test
    void sendMatchesTheTable() {
        final byte[] expected = new Reference()
                .header(PacketType.SEND, Flags.RETRANSMISSION, 63, 0xFFFF, -2, 0x7FFFFFFF, 3)
                .le(-1, 4).le(Long.MIN_VALUE, 8).le(9, 4).le(0x11223344, 4).le(0x0102030405060708L, 8)
                .le(0x1122334455667788L, 8).le(0, 8).bytes(seq(3, 0xF0)).withCrc();
        assertWrites(expected, 1, buffer -> new DataFlyweight().wrap(buffer, 1)
                .putHeader(PacketType.SEND, Flags.RETRANSMISSION, 63, 0xFFFF, -2, 0x7FFFFFFF, 0)
                .psn(-1).timestampNs(Long.MIN_VALUE).messageSequence(9).streamId(0x11223344)
                .messageOffset(0x0102030405060708L).messageLength(0x1122334455667788L).base(0)
                .putPayload(new UnsafeBuffer(seq(3, 0xF0)), 0, 3));
    }

    @Test
    void ackMatchesTheTable() {
        final byte[] sack = new byte[32];
        sack[0] = 0b0000_0101; // PSNs cumulative + 1 and + 3
        sack[31] = (byte) 0x80; // PSN cumulative + 256
        final byte[] expected = new Reference()
                .header(PacketType.ACK, 0, 7, 3, 0x0A0B0C0D, 0x55AA55AA, 0)
                .le(1000, 4).le(12, 4).le(123_456_789L, 8).le(12_500_000_000L, 8).bytes(sack).withCrc();
        assertWrites(expected, 0, buffer -> new AckFlyweight().wrap(buffer, 0).putHeader(7, 3, 0x0A0B0C0D, 0x55AA55AA)
                .cumulativePsn(1000).ecnCount(12).echoTimestampNs(123_456_789L)
                .rateHintBytesPerSecond(12_500_000_000L).clearSack().setSackBit(0).setSackBit(2).setSackBit(255));
    }

    @Test
    void handshakeInitAndAcceptMatchTheTables() {
        final byte[] initNonce = seq(16, 0x30);
        final byte[] initMac = seq(32, 0x80);
        assertWrites(new Reference().header(PacketType.HANDSHAKE_INIT, 0, 1, 0, 0, 0, 0)
                        .le(77, 4).bytes(initNonce).le(16, 1).le(0, 1).le(4096, 2).bytes(initMac).withCrc(), 0,
                buffer -> new HandshakeInitFlyweight().wrap(buffer, 0).putHeader(1, 0)
                        .initiatorConnectionId(77).putNonce(initNonce, 0).paths(16).payloadBytes(4096)
                        .putMac(initMac, 0));

        final byte[] acceptNonce = seq(16, 0x40);
        final byte[] acceptMac = seq(32, 0x90);
        assertWrites(new Reference().header(PacketType.HANDSHAKE_ACCEPT, 0, 1, 0, 77, 0, 0)
                        .le(88, 4).bytes(acceptNonce).le(0xCAFEBABEL, 4).bytes(acceptMac).withCrc(), 0,
                buffer -> new HandshakeAcceptFlyweight().wrap(buffer, 0).putHeader(1, 0, 77)
                        .acceptorConnectionId(88).putNonce(acceptNonce, 0).grantedSessionTag(0xCAFEBABE)
                        .putMac(acceptMac, 0));
    }

    @Test
    void probeAndReplyMatchTheTable() {
        for (int type : new int[] {PacketType.PROBE, PacketType.PROBE_REPLY}) {
            final byte[] expected = new Reference().header(type, 0, 2, 9, 5, 6, 0)
                    .le(31, 4).le(0x0102030405060708L, 8).withCrc();
            assertWrites(expected, 0, buffer -> new ProbeFlyweight().wrap(buffer, 0).putHeader(type, 0, 2, 9, 5, 6, 0)
                    .probeSequence(31).timestampNs(0x0102030405060708L));
        }
    }

    @Test
    void closeMatchesTheTable() {
        final byte[] expected = new Reference().header(PacketType.CLOSE, 0, 0, 1, 5, 6, 0)
                .le(CloseFlyweight.REASON_SHUTDOWN, 4).withCrc();
        assertWrites(expected, 0, buffer -> new CloseFlyweight().wrap(buffer, 0)
                .putHeader(PacketType.CLOSE, 0, 0, 1, 5, 6, 0).reason(CloseFlyweight.REASON_SHUTDOWN));
    }

    @Test
    void rnrMatchesTheTable() {
        final byte[] expected = new Reference().header(PacketType.RNR, 0, 3, 4, 5, 6, 0)
                .le(12, 4).le(34, 4).le(50_000, 8).withCrc();
        assertWrites(expected, 0, buffer -> new RnrFlyweight().wrap(buffer, 0)
                .putHeader(PacketType.RNR, 0, 3, 4, 5, 6, 0).streamId(12).messageSequence(34).retryAfterNs(50_000));
    }

    @Test
    void typeCodesMatchTheSpec() {
        assertThat(new int[] {PacketType.WRITE, PacketType.SEND, PacketType.ACK, PacketType.HANDSHAKE_INIT,
                PacketType.HANDSHAKE_ACCEPT, PacketType.PROBE, PacketType.PROBE_REPLY, PacketType.CLOSE,
                PacketType.RNR}).containsExactly(1, 2, 3, 16, 17, 18, 19, 20, 21);
        assertThat(new int[] {Flags.LAST, Flags.ACK_REQUESTED, Flags.RETRANSMISSION}).containsExactly(1, 2, 4);
        for (int type = 0; type < 256; type++) {
            final boolean known = type == 1 || type == 2 || type == 3 || (type >= 16 && type <= 21);
            assertThat(PacketType.isKnown(type)).as("type %d", type).isEqualTo(known);
            assertThat(PacketType.name(type).equals("UNKNOWN")).isEqualTo(!known);
        }
    }
}
