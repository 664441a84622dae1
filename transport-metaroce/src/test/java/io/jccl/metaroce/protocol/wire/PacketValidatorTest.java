package io.jccl.metaroce.protocol.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.jccl.metaroce.protocol.DropReason;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link PacketValidator} accepts valid packets of every type and drops each malformation with its reason. */
class PacketValidatorTest {
    private static final int OFFSET = 5;

    /** A packet in a buffer, to be damaged. */
    record Packet(MutableDirectBuffer buffer, int offset, int length) {
        void putByte(int at, int value) {
            buffer.putByte(offset + at, (byte) value);
        }

        void putShort(int at, int value) {
            buffer.putShort(offset + at, (short) value, HeaderFlyweight.BYTE_ORDER);
        }

        void putInt(int at, int value) {
            buffer.putInt(offset + at, value, HeaderFlyweight.BYTE_ORDER);
        }

        void putLong(int at, long value) {
            buffer.putLong(offset + at, value, HeaderFlyweight.BYTE_ORDER);
        }

        int getByte(int at) {
            return buffer.getByte(offset + at) & 0xFF;
        }
    }

    /** A malformation: what it does to a packet of a type, whether the CRC is then fixed, and the reason expected. */
    record Case(String name, int type, int payloadLength, Consumer<Packet> damage, boolean fixCrc, int lengthDelta,
                DropReason expected) {
    }

    private static Case fixed(String name, int type, Consumer<Packet> damage, DropReason expected) {
        return new Case(name, type, 100, damage, true, 0, expected);
    }

    private static Case raw(String name, int type, Consumer<Packet> damage, int lengthDelta, DropReason expected) {
        return new Case(name, type, 100, damage, false, lengthDelta, expected);
    }

    static Stream<Arguments> malformations() {
        final List<Case> cases = new ArrayList<>();
        for (int type : Packets.TYPES) {
            final String t = PacketType.name(type);
            final int headers = HeaderFlyweight.HEADER_LENGTH + PacketType.typeHeaderLength(type);
            cases.add(raw(t + " magic", type, p -> p.putShort(0, 0x4D52), 0, DropReason.BAD_MAGIC));
            cases.add(raw(t + " magic high byte", type, p -> p.putByte(1, 0x53), 0, DropReason.BAD_MAGIC));
            cases.add(raw(t + " version 0", type, p -> p.putByte(2, 0), 0, DropReason.BAD_VERSION));
            cases.add(raw(t + " version 2", type, p -> p.putByte(2, 2), 0, DropReason.BAD_VERSION));
            cases.add(raw(t + " shorter than its headers", type, p -> { }, -(p(type) - headers) - 1,
                    DropReason.TRUNCATED));
            cases.add(raw(t + " one byte short", type, p -> { }, -1,
                    PacketType.isData(type) ? DropReason.BAD_LENGTH : DropReason.TRUNCATED));
            cases.add(raw(t + " one byte long", type, p -> { }, +1, DropReason.BAD_LENGTH));
            cases.add(raw(t + " CRC byte flipped", type, p -> p.putByte(p.length() - 1, p.getByte(p.length() - 1) ^ 1),
                    0, DropReason.BAD_CRC));
            cases.add(raw(t + " last header byte flipped", type, p -> p.putByte(headers - 1,
                    p.getByte(headers - 1) ^ 0x80), 0, DropReason.BAD_CRC));
            cases.add(raw(t + " flags flipped, CRC stale", type, p -> p.putByte(4, 0x80), 0, DropReason.BAD_CRC));
            if (type == PacketType.WRITE) {
                cases.add(fixed(t + " flag bit 3 (IMMEDIATE) without LAST", type,
                        p -> p.putByte(4, (p.getByte(4) | Flags.IMMEDIATE) & ~Flags.LAST), DropReason.BAD_FIELD));
                cases.add(fixed(t + " flag bit 4", type, p -> p.putByte(4, p.getByte(4) | 0x10), DropReason.BAD_FIELD));
            } else {
                cases.add(fixed(t + " flag bit 3", type, p -> p.putByte(4, p.getByte(4) | 0x08), DropReason.BAD_FIELD));
            }
            cases.add(fixed(t + " flag bit 7", type, p -> p.putByte(4, 0x80), DropReason.BAD_FIELD));
            cases.add(fixed(t + " path id 64", type, p -> p.putByte(5, 64), DropReason.BAD_FIELD));
            cases.add(fixed(t + " path id 255", type, p -> p.putByte(5, 255), DropReason.BAD_FIELD));
            cases.add(fixed(t + " reserved low byte", type, p -> p.putByte(18, 1), DropReason.BAD_FIELD));
            cases.add(fixed(t + " reserved high byte", type, p -> p.putByte(19, 0x80), DropReason.BAD_FIELD));
            if (!PacketType.isData(type)) {
                for (int flag : new int[] {Flags.LAST, Flags.ACK_REQUESTED, Flags.RETRANSMISSION}) {
                    cases.add(fixed(t + " DATA flag " + flag, type, p -> p.putByte(4, flag), DropReason.BAD_FIELD));
                }
                cases.add(raw(t + " with a body, length matching", type, p -> p.putShort(16, 4), 4,
                        DropReason.BAD_LENGTH));
                cases.add(raw(t + " with a body, length not matching", type, p -> p.putShort(16, 1), 0,
                        DropReason.BAD_LENGTH));
            }
        }
        // DATA bodies
        for (int type : new int[] {PacketType.WRITE, PacketType.SEND}) {
            final String t = PacketType.name(type);
            cases.add(raw(t + " body 0, length matching", type, p -> p.putShort(16, 0), -100, DropReason.BAD_LENGTH));
            cases.add(raw(t + " body length above the datagram", type, p -> p.putShort(16, 101), 0,
                    DropReason.BAD_LENGTH));
            cases.add(raw(t + " body length below the datagram", type, p -> p.putShort(16, 99), 0,
                    DropReason.BAD_LENGTH));
            cases.add(new Case(t + " body 65001, length matching", type, 65_000, p -> {
                p.putByte(4, p.getByte(4) & ~Flags.IMMEDIATE);
                p.putShort(16, 65_001);
            }, false, 1, DropReason.BAD_LENGTH));
            cases.add(new Case(t + " body 65535, length matching", type, 65_000, p -> p.putShort(16, 65_535), false,
                    535, DropReason.BAD_LENGTH));
        }
        cases.add(new Case("WRITE with immediate, body 65005, length matching", PacketType.WRITE, 65_000, p -> {
            p.putByte(4, p.getByte(4) | Flags.IMMEDIATE | Flags.LAST);
            p.putShort(16, 65_005);
        }, false, 5, DropReason.BAD_LENGTH));
        cases.add(new Case("WRITE with immediate, body 3", PacketType.WRITE, 3,
                p -> p.putByte(4, p.getByte(4) | Flags.IMMEDIATE | Flags.LAST), true, 0, DropReason.BAD_FIELD));
        cases.add(fixed("SEND with a base", PacketType.SEND, p -> p.putLong(DataFlyweight.BASE_FIELD_OFFSET, 1),
                DropReason.BAD_FIELD));
        cases.add(fixed("SEND with a base's top bit", PacketType.SEND,
                p -> p.putLong(DataFlyweight.BASE_FIELD_OFFSET, Long.MIN_VALUE), DropReason.BAD_FIELD));
        // unknown types: every code 0-255 that v1 does not define
        for (int code = 0; code < 256; code++) {
            if (!PacketType.isKnown(code)) {
                final int c = code;
                cases.add(raw("type " + code, PacketType.ACK, p -> p.putByte(3, c), 0, DropReason.UNKNOWN_TYPE));
            }
        }
        // handshakes
        final int init = PacketType.HANDSHAKE_INIT;
        final int accept = PacketType.HANDSHAKE_ACCEPT;
        cases.add(fixed("INIT connection id", init, p -> p.putInt(8, 1), DropReason.BAD_FIELD));
        cases.add(fixed("INIT session tag", init, p -> p.putInt(12, -1), DropReason.BAD_FIELD));
        cases.add(fixed("INIT reserved byte", init, p -> p.putByte(41, 1), DropReason.BAD_FIELD));
        cases.add(fixed("INIT 0 paths", init, p -> p.putByte(40, 0), DropReason.BAD_FIELD));
        cases.add(fixed("INIT 65 paths", init, p -> p.putByte(40, 65), DropReason.BAD_FIELD));
        cases.add(fixed("INIT payload 255", init, p -> p.putShort(42, 255), DropReason.BAD_FIELD));
        cases.add(fixed("INIT payload 65001", init, p -> p.putShort(42, 65_001), DropReason.BAD_FIELD));
        cases.add(fixed("ACCEPT session tag in the header", accept, p -> p.putInt(12, 7), DropReason.BAD_FIELD));
        return cases.stream().map(c -> Arguments.of(Named.of(c.name(), c)));
    }

    private static int p(int type) {
        return Packets.frameLength(type, 100);
    }

    @ParameterizedTest
    @MethodSource("malformations")
    void dropsWithTheRightReason(Case c) {
        for (BufferKind kind : BufferKind.values()) {
            final int frame = Packets.frameLength(c.type(), c.payloadLength());
            final MutableDirectBuffer buffer = kind.allocate(OFFSET + frame + 600);
            final Packets packets = new Packets();
            final int length = packets.write(c.type(), buffer, OFFSET, c.payloadLength(), new SplittableRandom(1));
            assertThat(new PacketValidator().check(buffer, OFFSET, length)).as("intact").isNull();
            final int damagedLength = length + c.lengthDelta();
            c.damage().accept(new Packet(buffer, OFFSET, damagedLength));
            if (c.fixCrc()) {
                packets.refreshCrc(buffer, OFFSET, damagedLength);
            }
            assertThat(new PacketValidator().check(buffer, OFFSET, damagedLength)).as("%s in %s", c.name(), kind)
                    .isEqualTo(c.expected());
        }
    }

    @ParameterizedTest
    @EnumSource(BufferKind.class)
    void acceptsValidPacketsOfEveryType(BufferKind kind) {
        final SplittableRandom random = new SplittableRandom(11);
        final Packets packets = new Packets();
        final PacketValidator validator = new PacketValidator();
        for (int type : Packets.TYPES) {
            for (int payload : PacketType.isData(type) ? new int[] {1, 2, 7, 100, 4096, 9000, 65_000} : new int[] {0}) {
                for (int offset : new int[] {0, 1, 3, 8}) {
                    final MutableDirectBuffer buffer = kind.allocate(offset + Packets.frameLength(type, payload));
                    final int length = packets.write(type, buffer, offset, payload, random);
                    assertThat(length).isEqualTo(Packets.frameLength(type, payload));
                    assertThat(validator.check(buffer, offset, length)).as("%s %d", PacketType.name(type), payload)
                            .isNull();
                }
            }
        }
    }

    @Test
    void acceptsEdgeValues() {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[200]);
        final HandshakeInitFlyweight init = new HandshakeInitFlyweight().wrap(buffer, 0);
        final Crc32c crc = new Crc32c();
        final PacketValidator validator = new PacketValidator();
        for (int[] pathsAndPayload : new int[][] {{1, 256}, {64, 65_000}}) {
            init.putHeader(63, 0xFFFF).paths(pathsAndPayload[0]).payloadBytes(pathsAndPayload[1]);
            crc.finish(buffer, 0, init.lengthWithoutCrc());
            assertThat(validator.check(buffer, 0, HandshakeInitFlyweight.FRAME_LENGTH)).isNull();
        }
        final DataFlyweight data = new DataFlyweight().wrap(buffer, 0);
        data.putHeader(PacketType.WRITE, Flags.SEND_FLAGS, 63, 0xFFFF, -1, -1, 1).base(-1).messageOffset(-1)
                .messageLength(-1);
        crc.finish(buffer, 0, data.lengthWithoutCrc());
        assertThat(validator.check(buffer, 0, data.frameLength())).as("bounds are the core's to check").isNull();
        data.putHeader(PacketType.WRITE, Flags.LAST, 0, 0, 1, 1, 0).messageLength(0).putImmediate(0xCAFEF00D);
        crc.finish(buffer, 0, data.lengthWithoutCrc());
        assertThat(validator.check(buffer, 0, data.frameLength())).as("an empty WRITE with immediate").isNull();
        assertThat(data.payloadLength()).isZero();
        assertThat(data.immediate()).isEqualTo(0xCAFEF00D);
    }

    @Test
    void impossibleRangesAreTruncated() {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[100]);
        final int length = new Packets().write(PacketType.CLOSE, buffer, 0, 0, new SplittableRandom(2));
        final PacketValidator validator = new PacketValidator();
        assertThat(validator.check(buffer, 0, length)).isNull();
        assertThat(validator.check(null, 0, length)).isEqualTo(DropReason.TRUNCATED);
        assertThat(validator.check(buffer, -1, length)).isEqualTo(DropReason.TRUNCATED);
        assertThat(validator.check(buffer, 0, -1)).isEqualTo(DropReason.TRUNCATED);
        assertThat(validator.check(buffer, 90, length)).isEqualTo(DropReason.TRUNCATED);
        assertThat(validator.check(buffer, 0, 101)).isEqualTo(DropReason.TRUNCATED);
        assertThat(validator.check(buffer, Integer.MAX_VALUE, Integer.MAX_VALUE)).isEqualTo(DropReason.TRUNCATED);
        assertThat(validator.check(buffer, 1, Integer.MAX_VALUE)).isEqualTo(DropReason.TRUNCATED);
        assertThat(validator.check(new UnsafeBuffer(new byte[0]), 0, 0)).isEqualTo(DropReason.TRUNCATED);
        for (int n = 0; n < HeaderFlyweight.HEADER_LENGTH; n++) {
            assertThat(validator.check(buffer, 0, n)).isEqualTo(DropReason.TRUNCATED);
        }
    }

    @Test
    void checksInTheDocumentedOrder() {
        // A datagram wrong in every way is dropped for the first check in the order.
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[200]);
        final Packets packets = new Packets();
        final PacketValidator validator = new PacketValidator();
        final int length = packets.write(PacketType.WRITE, buffer, 0, 50, new SplittableRandom(3));
        final Packet p = new Packet(buffer, 0, length);
        p.putByte(5, 200); // BAD_FIELD
        assertThat(validator.check(buffer, 0, length)).isEqualTo(DropReason.BAD_CRC);
        p.putShort(16, 0); // BAD_LENGTH
        assertThat(validator.check(buffer, 0, length)).isEqualTo(DropReason.BAD_LENGTH);
        assertThat(validator.check(buffer, 0, 30)).isEqualTo(DropReason.TRUNCATED);
        p.putByte(3, 99);
        assertThat(validator.check(buffer, 0, 30)).isEqualTo(DropReason.UNKNOWN_TYPE);
        p.putByte(2, 9);
        assertThat(validator.check(buffer, 0, 30)).isEqualTo(DropReason.BAD_VERSION);
        p.putByte(0, 0);
        assertThat(validator.check(buffer, 0, 30)).isEqualTo(DropReason.BAD_MAGIC);
        assertThat(validator.check(buffer, 0, 19)).isEqualTo(DropReason.TRUNCATED);
    }
}
