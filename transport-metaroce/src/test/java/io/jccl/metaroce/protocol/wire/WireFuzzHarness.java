package io.jccl.metaroce.protocol.wire;

import io.jccl.metaroce.protocol.DropReason;
import org.agrona.MutableDirectBuffer;

/**
 * Turns a fuzzer's bytes into a datagram and runs it through {@link PacketValidator}, then, when it is accepted,
 * through every getter of its flyweight, asserting what validation promises. Nothing may throw.
 *
 * <p>Input layout: byte 0 is a control byte, the rest the datagram.
 * <ul>
 *   <li>bits 0-1: the kind of buffer the datagram is copied into ({@link BufferKind} ordinal);</li>
 *   <li>bits 2-4: the offset (0-7) it is copied to;</li>
 *   <li>bit 5: recompute the CRC trailer first, so the fuzzer also reaches the checks behind the CRC (the field checks
 *       and the flyweights) without having to forge a CRC;</li>
 *   <li>bit 6: repair the frame first: magic, version, an unknown type byte mapped onto a known type, the body length that
 *       makes the length right (when one does), reserved 0. With bit 5 this lets even a fuzzer without coverage
 *       feedback reach the field checks and the flyweights.</li>
 * </ul>
 *
 * <p>To fuzz something else with datagrams (a live connection, say), copy {@code WirePacketFuzzTest} and its seed
 * directory, and reuse {@link #stage} to place the input; see {@code WirePacketFuzzTest} for how the runs are set up.
 */
final class WireFuzzHarness {
    /** The largest datagram tried: a maximal DATA packet plus some. */
    static final int MAX_DATAGRAM = DataFlyweight.MAX_FRAME_LENGTH + 64;
    /** Control bit: recompute the CRC before validating. */
    static final int FIX_CRC = 0x20;
    /** Control bit: repair magic, version, type, body length and reserved before validating. */
    static final int FIX_FRAME = 0x40;

    private final MutableDirectBuffer[] buffers = new MutableDirectBuffer[BufferKind.values().length];
    private final PacketValidator validator = new PacketValidator();
    private final Crc32c crc = new Crc32c();
    private final HeaderFlyweight header = new HeaderFlyweight();
    private final PacketFlyweights fly = new PacketFlyweights();
    private final HandshakeCrypto crypto = new HandshakeCrypto(Packets.KEY);
    private final byte[] scratch = new byte[HandshakeInitFlyweight.MAC_LENGTH];
    private long sink;

    WireFuzzHarness() {
        for (BufferKind kind : BufferKind.values()) {
            buffers[kind.ordinal()] = kind.allocate(MAX_DATAGRAM + 8);
        }
    }

    /** A datagram placed in a buffer. */
    record Staged(MutableDirectBuffer buffer, int offset, int length) {
    }

    /**
     * Places the datagram an input describes (see the class comment).
     *
     * @param input the fuzzer's bytes
     * @return where the datagram now is
     */
    Staged stage(byte[] input) {
        final int control = input.length == 0 ? 0 : input[0] & 0xFF;
        final MutableDirectBuffer buffer = buffers[control & 3];
        final int offset = (control >>> 2) & 7;
        final int length = Math.min(Math.max(0, input.length - 1), MAX_DATAGRAM);
        if (length > 0) {
            buffer.putBytes(offset, input, 1, length);
        }
        if ((control & FIX_FRAME) != 0 && length >= HeaderFlyweight.HEADER_LENGTH) {
            repairFrame(buffer, offset, length);
        }
        if ((control & FIX_CRC) != 0 && length >= Crc32c.LENGTH) {
            crc.finish(buffer, offset, length - Crc32c.LENGTH);
        }
        return new Staged(buffer, offset, length);
    }

    private void repairFrame(MutableDirectBuffer buffer, int offset, int length) {
        final HeaderFlyweight h = header.wrap(buffer, offset);
        final int type = PacketType.isKnown(h.type()) ? h.type() : Packets.TYPES[h.type() % Packets.TYPES.length];
        final int body = length - HeaderFlyweight.HEADER_LENGTH - PacketType.typeHeaderLength(type) - Crc32c.LENGTH;
        h.magic(HeaderFlyweight.MAGIC).version(HeaderFlyweight.VERSION).type(type).reserved(0);
        if (body >= 0 && body <= 0xFFFF) {
            h.bodyLength(body);
        }
    }

    /**
     * Runs one input.
     *
     * @param input the fuzzer's bytes
     */
    void run(byte[] input) {
        final Staged d = stage(input);
        final DropReason reason = validator.check(d.buffer(), d.offset(), d.length());
        // Shifted and impossible ranges over the same bytes: dropped or not, they must not throw.
        validator.check(d.buffer(), d.offset() + 1, d.length() - 1);
        validator.check(d.buffer(), d.offset(), d.buffer().capacity());
        if (reason == null) {
            check(validator.check(d.buffer(), d.offset(), d.length() + 1) != null, "one byte more accepted");
            readEverything(d.buffer(), d.offset(), d.length());
        }
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    private void readEverything(MutableDirectBuffer buffer, int offset, int length) {
        final HeaderFlyweight header = fly.data().wrap(buffer, offset);
        check(header.magic() == HeaderFlyweight.MAGIC && header.version() == HeaderFlyweight.VERSION, "magic/version");
        check(header.frameLength() == length, "frame length");
        check(header.pathId() <= HeaderFlyweight.MAX_PATH_ID, "path id");
        check(header.reserved() == 0, "reserved");
        check((header.flags() & ~PacketType.allowedFlags(header.type())) == 0, "flags");
        sink += header.pathGeneration() + header.connectionId() + header.sessionTag() + header.crc()
                + (header.isLast() ? 1 : 0) + (header.isAckRequested() ? 1 : 0) + (header.isRetransmission() ? 1 : 0);
        final int type = header.type();
        switch (type) {
            case PacketType.WRITE, PacketType.SEND -> {
                final DataFlyweight d = fly.data().wrap(buffer, offset);
                check(d.payloadLength() <= HeaderFlyweight.MAX_PAYLOAD_LENGTH
                        && (d.payloadLength() >= 1 || d.messageLength() == 0), "payload (empty only for an empty message)");
                check(d.payloadIndex() + d.payloadLength() + (d.hasImmediate() ? DataFlyweight.IMMEDIATE_LENGTH : 0)
                        + Crc32c.LENGTH == offset + length, "payload end");
                check(!d.hasImmediate() || d.isWrite() && d.isLast(), "immediate only on a WRITE's last packet");
                if (d.hasImmediate()) {
                    sink += d.immediate();
                }
                check(d.isWrite() != d.isSend(), "write or send");
                check(d.isWrite() || d.base() == 0, "send base");
                sink += d.psn() + d.timestampNs() + d.message() + d.writeId() + d.messageSequence() + d.target()
                        + d.regionKey() + d.streamId() + d.messageOffset() + d.messageLength() + d.base();
                for (int i = 0; i < d.payloadLength(); i += 509) {
                    sink += buffer.getByte(d.payloadIndex() + i);
                }
            }
            case PacketType.ACK -> {
                final AckFlyweight a = fly.ack().wrap(buffer, offset);
                check(a.bodyLength() == 0 && a.flags() == 0, "ack body/flags");
                sink += a.cumulativePsn() + a.ecnCount() + a.echoTimestampNs() + a.rateHintBytesPerSecond();
                long bits = 0;
                for (int i = 0; i < AckFlyweight.SACK_BITS; i++) {
                    bits += a.sackBit(i) ? 1 : 0;
                }
                long words = 0;
                for (int w = 0; w < AckFlyweight.SACK_WORDS; w++) {
                    words += Long.bitCount(a.sackWord(w));
                }
                check(bits == words, "sack bits and words agree");
            }
            case PacketType.HANDSHAKE_INIT -> {
                final HandshakeInitFlyweight h = fly.init().wrap(buffer, offset);
                check(h.connectionId() == 0 && h.sessionTag() == 0 && h.initReserved() == 0, "init header");
                check(h.paths() >= 1 && h.paths() <= 64, "paths");
                check(h.payloadBytes() >= 256 && h.payloadBytes() <= 65_000, "payload bytes");
                sink += h.initiatorConnectionId() + h.nonceLow() + h.nonceHigh();
                h.getNonce(scratch, 0);
                h.getMac(scratch, 0);
                sink += crypto.verifyInit(buffer, offset) ? 1 : 0;
            }
            case PacketType.HANDSHAKE_ACCEPT -> {
                final HandshakeAcceptFlyweight h = fly.accept().wrap(buffer, offset);
                check(h.sessionTag() == 0, "accept header");
                sink += h.initiatorConnectionId() + h.acceptorConnectionId() + h.nonceLow() + h.nonceHigh()
                        + h.grantedSessionTag();
                h.getNonce(scratch, 0);
                h.getMac(scratch, 0);
                sink += crypto.verifyAccept(buffer, offset, h.nonceLow(), h.nonceHigh()) ? 1 : 0;
            }
            case PacketType.PROBE, PacketType.PROBE_REPLY -> {
                final ProbeFlyweight p = fly.probe().wrap(buffer, offset);
                sink += p.probeSequence() + p.timestampNs() + p.echoTimestampNs() + (p.isReply() ? 1 : 0);
            }
            case PacketType.CLOSE -> sink += fly.close().wrap(buffer, offset).reason();
            case PacketType.RNR -> {
                final RnrFlyweight r = fly.rnr().wrap(buffer, offset);
                sink += r.streamId() + r.messageSequence() + r.retryAfterNs();
            }
            default -> throw new AssertionError("accepted an unknown type " + type);
        }
    }

    /** @return a value that depends on everything read, so nothing is optimized away */
    long sink() {
        return sink;
    }
}
