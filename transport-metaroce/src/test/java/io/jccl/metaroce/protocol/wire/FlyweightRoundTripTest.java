package io.jccl.metaroce.protocol.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.IntUnaryOperator;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * Every field of every flyweight reads back what was written, at odd offsets, in every kind of buffer, and no
 * setter writes outside its packet.
 */
class FlyweightRoundTripTest {
    private static final byte CANARY = 0x5A;
    private static final int SLACK = 16;

    private static MutableDirectBuffer canaryBuffer(BufferKind kind, int offset, int length) {
        final MutableDirectBuffer buffer = kind.allocate(offset + length + SLACK);
        buffer.setMemory(0, buffer.capacity(), CANARY);
        return buffer;
    }

    private static void assertOutsideUntouched(MutableDirectBuffer buffer, int offset, int length) {
        for (int i = 0; i < buffer.capacity(); i++) {
            if (i < offset || i >= offset + length) {
                assertThat(buffer.getByte(i)).as("byte %d outside the packet [%d, +%d)", i, offset, length)
                        .isEqualTo(CANARY);
            }
        }
    }

    private static int odd(int k) {
        return 2 * k + 1;
    }

    /** Checks the common header's fields as {@code putHeader} writes them (magic, version and reserved 0 included). */
    private static void assertHeader(HeaderFlyweight h, int type, int flags, int pathId, int generation,
                                     int connectionId, int sessionTag, int bodyLength) {
        assertThat(h.magic()).isEqualTo(HeaderFlyweight.MAGIC);
        assertThat(h.version()).isEqualTo(HeaderFlyweight.VERSION);
        assertThat(h.type()).isEqualTo(type);
        assertThat(h.flags()).isEqualTo(flags);
        assertThat(h.pathId()).isEqualTo(pathId);
        assertThat(h.pathGeneration()).isEqualTo(generation);
        assertThat(h.connectionId()).isEqualTo(connectionId);
        assertThat(h.sessionTag()).isEqualTo(sessionTag);
        assertThat(h.bodyLength()).isEqualTo(bodyLength);
        assertThat(h.reserved()).isZero();
    }

    /** Checks a packet's frame length and that nothing outside its frame was written. */
    private static void assertFrame(HeaderFlyweight h, MutableDirectBuffer buffer, int offset, int frameLength) {
        assertThat(h.frameLength()).isEqualTo(frameLength);
        assertOutsideUntouched(buffer, offset, frameLength);
    }

    /** @return MAC bytes {@code byteAt(0)} to {@code byteAt(31)} (low 8 bits) */
    private static byte[] mac(IntUnaryOperator byteAt) {
        final byte[] mac = new byte[HandshakeFlyweight.MAC_LENGTH];
        for (int i = 0; i < mac.length; i++) {
            mac[i] = (byte) byteAt.applyAsInt(i);
        }
        return mac;
    }

    /**
     * Checks what both handshakes share: the common header (no flags, session tag 0, no body), the nonce and MAC as
     * written (the nonce also copied out and in as 16 bytes, little-endian, low long first) and the frame.
     */
    private static void assertHandshake(HandshakeFlyweight<?> h, MutableDirectBuffer buffer, int offset, int type,
                                        int pathId, int generation, int connectionId, long nonceLow, long nonceHigh,
                                        byte[] mac) {
        assertHeader(h, type, 0, pathId, generation, connectionId, 0, 0);
        assertThat(h.nonceLow()).isEqualTo(nonceLow);
        assertThat(h.nonceHigh()).isEqualTo(nonceHigh);
        final byte[] macOut = new byte[HandshakeFlyweight.MAC_LENGTH];
        h.getMac(macOut, 0);
        assertThat(macOut).isEqualTo(mac);
        final byte[] nonce = new byte[HandshakeFlyweight.NONCE_LENGTH + 2];
        h.getNonce(nonce, 1);
        final UnsafeBuffer nonceBuffer = new UnsafeBuffer(nonce);
        assertThat(nonceBuffer.getLong(1, HeaderFlyweight.BYTE_ORDER)).isEqualTo(nonceLow);
        assertThat(nonceBuffer.getLong(9, HeaderFlyweight.BYTE_ORDER)).isEqualTo(nonceHigh);
        h.putNonce(new byte[18], 1);
        assertThat(h.nonceLow()).isZero();
        assertThat(h.nonceHigh()).isZero();
        h.putNonce(nonce, 1);
        assertThat(h.nonceLow()).isEqualTo(nonceLow);
        assertThat(h.nonceHigh()).isEqualTo(nonceHigh);
        assertFrame(h, buffer, offset, HandshakeFlyweight.FRAME_LENGTH);
    }

    @Property(tries = 300)
    void commonHeader(@ForAll BufferKind kind, @ForAll @IntRange(max = 7) int k,
                      @ForAll @IntRange(max = 0xFFFF) int magic, @ForAll @IntRange(max = 0xFF) int version,
                      @ForAll @IntRange(max = 0xFF) int type, @ForAll @IntRange(max = 0xFF) int flags,
                      @ForAll @IntRange(max = 0xFF) int pathId, @ForAll @IntRange(max = 0xFFFF) int generation,
                      @ForAll int connectionId, @ForAll int sessionTag, @ForAll @IntRange(max = 0xFFFF) int bodyLength,
                      @ForAll @IntRange(max = 0xFFFF) int reserved) {
        final int offset = odd(k);
        final MutableDirectBuffer buffer = canaryBuffer(kind, offset, HeaderFlyweight.HEADER_LENGTH);
        final HeaderFlyweight h = new HeaderFlyweight().wrap(buffer, offset);
        h.magic(magic).version(version).type(type).flags(flags).pathId(pathId).pathGeneration(generation)
                .connectionId(connectionId).sessionTag(sessionTag).bodyLength(bodyLength).reserved(reserved);

        assertThat(h.buffer()).isSameAs(buffer);
        assertThat(h.offset()).isEqualTo(offset);
        assertThat(h.magic()).isEqualTo(magic);
        assertThat(h.version()).isEqualTo(version);
        assertThat(h.type()).isEqualTo(type);
        assertThat(h.flags()).isEqualTo(flags);
        assertThat(h.isLast()).isEqualTo((flags & Flags.LAST) != 0);
        assertThat(h.isAckRequested()).isEqualTo((flags & Flags.ACK_REQUESTED) != 0);
        assertThat(h.isRetransmission()).isEqualTo((flags & Flags.RETRANSMISSION) != 0);
        assertThat(h.pathId()).isEqualTo(pathId);
        assertThat(h.pathGeneration()).isEqualTo(generation);
        assertThat(h.connectionId()).isEqualTo(connectionId);
        assertThat(h.sessionTag()).isEqualTo(sessionTag);
        assertThat(h.bodyLength()).isEqualTo(bodyLength);
        assertThat(h.reserved()).isEqualTo(reserved);
        assertOutsideUntouched(buffer, offset, HeaderFlyweight.HEADER_LENGTH);

        // putHeader writes the same fields plus magic, version and reserved 0.
        new HeaderFlyweight().wrap(buffer, offset)
                .putHeader(type, flags, pathId, generation, connectionId, sessionTag, bodyLength);
        assertHeader(h, type, flags, pathId, generation, connectionId, sessionTag, bodyLength);
        assertOutsideUntouched(buffer, offset, HeaderFlyweight.HEADER_LENGTH);
    }

    @Property(tries = 300)
    void data(@ForAll BufferKind kind, @ForAll @IntRange(max = 7) int k, @ForAll boolean write,
              @ForAll @IntRange(max = 7) int flags, @ForAll @IntRange(max = 63) int pathId,
              @ForAll @IntRange(max = 0xFFFF) int generation, @ForAll int connectionId, @ForAll int sessionTag,
              @ForAll @IntRange(min = 1, max = 300) int payloadLength, @ForAll int psn, @ForAll long timestampNs,
              @ForAll int message, @ForAll int target, @ForAll long messageOffset, @ForAll long messageLength,
              @ForAll long base) {
        final int offset = odd(k);
        final int type = write ? PacketType.WRITE : PacketType.SEND;
        final int frame = DataFlyweight.DATA_HEADER_LENGTH + payloadLength + Crc32c.LENGTH;
        final MutableDirectBuffer buffer = canaryBuffer(kind, offset, frame);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[payloadLength]);
        for (int i = 0; i < payloadLength; i++) {
            payload.putByte(i, (byte) (i * 31 + psn));
        }
        final DataFlyweight d = new DataFlyweight().wrap(buffer, offset)
                .putHeader(type, flags, pathId, generation, connectionId, sessionTag, 0)
                .psn(psn).timestampNs(timestampNs).message(message).target(target).messageOffset(messageOffset)
                .messageLength(messageLength).base(base).putPayload(payload, 0, payloadLength);
        new Crc32c().finish(buffer, offset, d.lengthWithoutCrc());

        assertHeader(d, type, flags, pathId, generation, connectionId, sessionTag, payloadLength);
        assertThat(d.isWrite()).isEqualTo(write);
        assertThat(d.isSend()).isEqualTo(!write);
        assertThat(d.psn()).isEqualTo(psn);
        assertThat(d.timestampNs()).isEqualTo(timestampNs);
        assertThat(d.message()).isEqualTo(message);
        assertThat(d.writeId()).isEqualTo(message);
        assertThat(d.messageSequence()).isEqualTo(message);
        assertThat(d.target()).isEqualTo(target);
        assertThat(d.regionKey()).isEqualTo(target);
        assertThat(d.streamId()).isEqualTo(target);
        assertThat(d.messageOffset()).isEqualTo(messageOffset);
        assertThat(d.messageLength()).isEqualTo(messageLength);
        assertThat(d.base()).isEqualTo(base);
        assertThat(d.payloadLength()).isEqualTo(payloadLength);
        assertThat(d.payloadIndex()).isEqualTo(offset + DataFlyweight.PAYLOAD_FIELD_OFFSET);
        assertThat(d.lengthWithoutCrc()).isEqualTo(frame - Crc32c.LENGTH);
        final UnsafeBuffer copy = new UnsafeBuffer(new byte[payloadLength]);
        d.getPayload(copy, 0);
        assertThat(copy.byteArray()).isEqualTo(payload.byteArray());
        assertThat(new Crc32c().verify(buffer, offset, frame)).isTrue();
        assertThat(d.crc()).isEqualTo(new Crc32c().compute(buffer, offset, frame - Crc32c.LENGTH));
        assertFrame(d, buffer, offset, frame);

        // The alias setters write the same fields.
        d.writeId(~message).regionKey(~target);
        assertThat(d.messageSequence()).isEqualTo(~message);
        assertThat(d.streamId()).isEqualTo(~target);
        d.messageSequence(message).streamId(target);
        assertThat(d.writeId()).isEqualTo(message);
        assertThat(d.regionKey()).isEqualTo(target);
    }

    @Property(tries = 300)
    void ack(@ForAll BufferKind kind, @ForAll @IntRange(max = 7) int k, @ForAll @IntRange(max = 63) int pathId,
             @ForAll @IntRange(max = 0xFFFF) int generation, @ForAll int connectionId, @ForAll int sessionTag,
             @ForAll int cumulativePsn, @ForAll int ecnCount, @ForAll long echoNs, @ForAll long rateHint,
             @ForAll long w0, @ForAll long w1, @ForAll long w2, @ForAll long w3,
             @ForAll @IntRange(max = 255) int bit) {
        final int offset = odd(k);
        final MutableDirectBuffer buffer = canaryBuffer(kind, offset, AckFlyweight.FRAME_LENGTH);
        final AckFlyweight a = new AckFlyweight().wrap(buffer, offset)
                .putHeader(pathId, generation, connectionId, sessionTag)
                .cumulativePsn(cumulativePsn).ecnCount(ecnCount).echoTimestampNs(echoNs)
                .rateHintBytesPerSecond(rateHint).sackWord(0, w0).sackWord(1, w1).sackWord(2, w2).sackWord(3, w3);
        new Crc32c().finish(buffer, offset, a.lengthWithoutCrc());

        assertHeader(a, PacketType.ACK, 0, pathId, generation, connectionId, sessionTag, 0);
        assertThat(a.cumulativePsn()).isEqualTo(cumulativePsn);
        assertThat(a.ecnCount()).isEqualTo(ecnCount);
        assertThat(a.echoTimestampNs()).isEqualTo(echoNs);
        assertThat(a.rateHintBytesPerSecond()).isEqualTo(rateHint);
        final long[] words = {w0, w1, w2, w3};
        for (int w = 0; w < 4; w++) {
            assertThat(a.sackWord(w)).isEqualTo(words[w]);
        }
        for (int i = 0; i < AckFlyweight.SACK_BITS; i++) {
            assertThat(a.sackBit(i)).as("bit %d", i).isEqualTo(((words[i / 64] >>> (i % 64)) & 1) != 0);
            // byte i/8, bit i%8 of the bitmap, as the spec says
            final int byteValue = buffer.getByte(offset + AckFlyweight.SACK_FIELD_OFFSET + i / 8);
            assertThat(((byteValue >>> (i % 8)) & 1) != 0).isEqualTo(a.sackBit(i));
        }
        assertFrame(a, buffer, offset, AckFlyweight.FRAME_LENGTH);

        // One bit set and cleared changes only that bit.
        final boolean before = a.sackBit(bit);
        a.sackBit(bit, !before);
        for (int i = 0; i < AckFlyweight.SACK_BITS; i++) {
            assertThat(a.sackBit(i)).isEqualTo(i == bit ? !before : ((words[i / 64] >>> (i % 64)) & 1) != 0);
        }
        a.sackBit(bit, before);
        assertThat(a.sackWord(bit / 64)).isEqualTo(words[bit / 64]);

        a.clearSack();
        for (int w = 0; w < 4; w++) {
            assertThat(a.sackWord(w)).isZero();
        }
        a.setSackBit(bit);
        assertThat(a.sackWord(bit / 64)).isEqualTo(1L << (bit % 64));
        assertThat(a.cumulativePsn()).isEqualTo(cumulativePsn);
        assertThat(a.rateHintBytesPerSecond()).isEqualTo(rateHint);
        assertOutsideUntouched(buffer, offset, AckFlyweight.FRAME_LENGTH);
    }

    @Property(tries = 300)
    void handshakeInit(@ForAll BufferKind kind, @ForAll @IntRange(max = 7) int k,
                       @ForAll @IntRange(max = 63) int pathId, @ForAll @IntRange(max = 0xFFFF) int generation,
                       @ForAll int initiatorId, @ForAll long nonceLow, @ForAll long nonceHigh,
                       @ForAll @IntRange(max = 255) int paths, @ForAll @IntRange(max = 0xFFFF) int payloadBytes,
                       @ForAll @IntRange(max = 255) int reserved, @ForAll byte macSeed) {
        final int offset = odd(k);
        final MutableDirectBuffer buffer = canaryBuffer(kind, offset, HandshakeInitFlyweight.FRAME_LENGTH);
        final byte[] mac = mac(i -> macSeed + i * 7);
        final HandshakeInitFlyweight h = new HandshakeInitFlyweight().wrap(buffer, offset)
                .putHeader(pathId, generation).initiatorConnectionId(initiatorId).nonce(nonceLow, nonceHigh)
                .paths(paths).payloadBytes(payloadBytes).initReserved(reserved).putMac(mac, 0);
        new Crc32c().finish(buffer, offset, h.lengthWithoutCrc());

        assertHandshake(h, buffer, offset, PacketType.HANDSHAKE_INIT, pathId, generation, 0, nonceLow, nonceHigh, mac);
        assertThat(h.initiatorConnectionId()).isEqualTo(initiatorId);
        assertThat(h.paths()).isEqualTo(paths);
        assertThat(h.payloadBytes()).isEqualTo(payloadBytes);
        assertThat(h.initReserved()).isEqualTo(reserved);
    }

    @Property(tries = 300)
    void handshakeAccept(@ForAll BufferKind kind, @ForAll @IntRange(max = 7) int k,
                         @ForAll @IntRange(max = 63) int pathId, @ForAll @IntRange(max = 0xFFFF) int generation,
                         @ForAll int initiatorId, @ForAll int acceptorId, @ForAll long nonceLow,
                         @ForAll long nonceHigh, @ForAll int tag, @ForAll byte macSeed) {
        final int offset = odd(k);
        final MutableDirectBuffer buffer = canaryBuffer(kind, offset, HandshakeAcceptFlyweight.FRAME_LENGTH);
        final byte[] mac = mac(i -> macSeed ^ i * 13);
        final HandshakeAcceptFlyweight h = new HandshakeAcceptFlyweight().wrap(buffer, offset)
                .putHeader(pathId, generation, initiatorId).acceptorConnectionId(acceptorId)
                .nonce(nonceLow, nonceHigh).grantedSessionTag(tag).putMac(mac, 0);
        new Crc32c().finish(buffer, offset, h.lengthWithoutCrc());

        assertHandshake(h, buffer, offset, PacketType.HANDSHAKE_ACCEPT, pathId, generation, initiatorId, nonceLow,
                nonceHigh, mac);
        assertThat(h.initiatorConnectionId()).isEqualTo(initiatorId);
        assertThat(h.acceptorConnectionId()).isEqualTo(acceptorId);
        assertThat(h.grantedSessionTag()).isEqualTo(tag);
    }

    @Property(tries = 200)
    void probe(@ForAll BufferKind kind, @ForAll @IntRange(max = 7) int k, @ForAll boolean reply,
               @ForAll @IntRange(max = 63) int pathId, @ForAll int connectionId, @ForAll int sessionTag,
               @ForAll int sequence, @ForAll long timestampNs) {
        final int offset = odd(k);
        final int type = reply ? PacketType.PROBE_REPLY : PacketType.PROBE;
        final MutableDirectBuffer buffer = canaryBuffer(kind, offset, ProbeFlyweight.FRAME_LENGTH);
        final ProbeFlyweight p = new ProbeFlyweight().wrap(buffer, offset)
                .putHeader(type, 0, pathId, 9, connectionId, sessionTag, 0)
                .probeSequence(sequence).timestampNs(timestampNs);
        new Crc32c().finish(buffer, offset, p.lengthWithoutCrc());

        assertHeader(p, type, 0, pathId, 9, connectionId, sessionTag, 0);
        assertThat(p.isReply()).isEqualTo(reply);
        assertThat(p.probeSequence()).isEqualTo(sequence);
        assertThat(p.timestampNs()).isEqualTo(timestampNs);
        assertThat(p.echoTimestampNs()).isEqualTo(timestampNs);
        p.echoTimestampNs(~timestampNs);
        assertThat(p.timestampNs()).isEqualTo(~timestampNs);
        assertFrame(p, buffer, offset, ProbeFlyweight.FRAME_LENGTH);
    }

    @Property(tries = 200)
    void close(@ForAll BufferKind kind, @ForAll @IntRange(max = 7) int k, @ForAll int connectionId,
               @ForAll int sessionTag, @ForAll int reason) {
        final int offset = odd(k);
        final MutableDirectBuffer buffer = canaryBuffer(kind, offset, CloseFlyweight.FRAME_LENGTH);
        final CloseFlyweight c = new CloseFlyweight().wrap(buffer, offset)
                .putHeader(PacketType.CLOSE, 0, 5, 6, connectionId, sessionTag, 0).reason(reason);
        new Crc32c().finish(buffer, offset, c.lengthWithoutCrc());

        assertHeader(c, PacketType.CLOSE, 0, 5, 6, connectionId, sessionTag, 0);
        assertThat(c.reason()).isEqualTo(reason);
        assertFrame(c, buffer, offset, CloseFlyweight.FRAME_LENGTH);
    }

    @Property(tries = 200)
    void rnr(@ForAll BufferKind kind, @ForAll @IntRange(max = 7) int k, @ForAll int connectionId,
             @ForAll int sessionTag, @ForAll int streamId, @ForAll int messageSequence, @ForAll long retryAfterNs) {
        final int offset = odd(k);
        final MutableDirectBuffer buffer = canaryBuffer(kind, offset, RnrFlyweight.FRAME_LENGTH);
        final RnrFlyweight r = new RnrFlyweight().wrap(buffer, offset)
                .putHeader(PacketType.RNR, 0, 0, 0, connectionId, sessionTag, 0)
                .streamId(streamId).messageSequence(messageSequence).retryAfterNs(retryAfterNs);
        new Crc32c().finish(buffer, offset, r.lengthWithoutCrc());

        assertHeader(r, PacketType.RNR, 0, 0, 0, connectionId, sessionTag, 0);
        assertThat(r.streamId()).isEqualTo(streamId);
        assertThat(r.messageSequence()).isEqualTo(messageSequence);
        assertThat(r.retryAfterNs()).isEqualTo(retryAfterNs);
        assertFrame(r, buffer, offset, RnrFlyweight.FRAME_LENGTH);
    }

    @Test
    void unsignedSettersWriteTheLowBits() {
        final HeaderFlyweight h = new HeaderFlyweight().wrap(new UnsafeBuffer(new byte[32]), 0);
        h.version(0x1FF).type(0x102).flags(0x1F0).pathId(0x140).pathGeneration(0x12345).bodyLength(0x1FFFF);
        assertThat(h.version()).isEqualTo(0xFF);
        assertThat(h.type()).isEqualTo(0x02);
        assertThat(h.flags()).isEqualTo(0xF0);
        assertThat(h.pathId()).isEqualTo(0x40);
        assertThat(h.pathGeneration()).isEqualTo(0x2345);
        assertThat(h.bodyLength()).isEqualTo(0xFFFF);
    }

    @Test
    void sackIndicesAreChecked() {
        final AckFlyweight a = new AckFlyweight().wrap(new UnsafeBuffer(new byte[AckFlyweight.FRAME_LENGTH]), 0);
        assertThatThrownBy(() -> a.sackBit(256)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> a.sackBit(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> a.setSackBit(256)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> a.sackWord(4)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> a.sackWord(-1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void frameLengthOfAnUnknownTypeIsMinusOne() {
        final HeaderFlyweight h = new HeaderFlyweight().wrap(new UnsafeBuffer(new byte[32]), 0);
        h.type(99);
        assertThat(h.lengthWithoutCrc()).isEqualTo(-1);
        assertThat(h.frameLength()).isEqualTo(-1);
        assertThatThrownBy(h::crc).isInstanceOf(IllegalStateException.class);
    }
}
