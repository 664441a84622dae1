package io.jccl.metaroce.protocol.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

import io.jccl.metaroce.protocol.DropReason;
import org.agrona.MutableDirectBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Validating, checksumming and reading or writing packets through the flyweights allocates nothing once warm, for
 * every kind of buffer and every off-heap CRC strategy. Measured as bytes this thread allocated
 * ({@link com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes()}), never as time.
 */
class AllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int WARM_UP_ROUNDS = 3000;
    private static final int MEASURED_ROUNDS = 500;
    private static final int ATTEMPTS = 5;

    private static final MutableDirectBuffer[] BUFFERS = new MutableDirectBuffer[BufferKind.values().length * 10];
    private static final int[] OFFSETS = new int[BUFFERS.length];
    private static final int[] LENGTHS = new int[BUFFERS.length];

    private final PacketFlyweights fly = new PacketFlyweights();
    private long sink;

    @BeforeAll
    static void packets() {
        final SplittableRandom random = new SplittableRandom(9);
        final Packets packets = new Packets();
        int i = 0;
        for (BufferKind kind : BufferKind.values()) {
            for (int type : Packets.TYPES) {
                final int payload = PacketType.isData(type) ? 1500 : 0;
                final int offset = 1 + (i % 7);
                BUFFERS[i] = kind.allocate(offset + Packets.frameLength(type, payload) + 8);
                OFFSETS[i] = offset;
                LENGTHS[i] = packets.write(type, BUFFERS[i], offset, payload, random);
                i++;
            }
            // one damaged packet per kind: a bad CRC
            BUFFERS[i] = kind.allocate(100);
            OFFSETS[i] = 3;
            LENGTHS[i] = packets.write(PacketType.ACK, BUFFERS[i], 3, 0, random);
            BUFFERS[i].putByte(40, (byte) (BUFFERS[i].getByte(40) ^ 1));
            i++;
        }
    }

    private interface Work {
        void round();
    }

    private static long allocatedBytes(Work work) {
        for (int i = 0; i < WARM_UP_ROUNDS; i++) {
            work.round();
        }
        long least = Long.MAX_VALUE;
        for (int attempt = 0; attempt < ATTEMPTS && least > 0; attempt++) {
            final long before = THREADS.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < MEASURED_ROUNDS; i++) {
                work.round();
            }
            least = Math.min(least, THREADS.getCurrentThreadAllocatedBytes() - before);
        }
        return least;
    }

    private void validateAll(PacketValidator validator) {
        for (int i = 0; i < BUFFERS.length; i++) {
            final DropReason reason = validator.check(BUFFERS[i], OFFSETS[i], LENGTHS[i]);
            sink += reason == null ? 1 : reason.ordinal() + 2;
            // and malformed ranges
            sink += validator.check(BUFFERS[i], OFFSETS[i], LENGTHS[i] - 1).ordinal();
            sink += validator.check(BUFFERS[i], OFFSETS[i], 7).ordinal();
        }
    }

    @Test
    void checkAllocatesNothing() {
        assertThat(THREADS.isThreadAllocatedMemoryEnabled()).isTrue();
        for (Crc32c.OffHeapStrategy strategy : Crc32c.OffHeapStrategy.values()) {
            final PacketValidator validator = new PacketValidator(new Crc32c(strategy));
            assertThat(allocatedBytes(() -> validateAll(validator))).as("check, %s", strategy).isZero();
        }
        assertThat(sink).isNotZero();
    }

    @Test
    void finishAndVerifyAllocateNothing() {
        for (Crc32c.OffHeapStrategy strategy : Crc32c.OffHeapStrategy.values()) {
            final Crc32c crc = new Crc32c(strategy);
            assertThat(allocatedBytes(() -> {
                for (int i = 0; i < BUFFERS.length; i++) {
                    sink += crc.finish(BUFFERS[i], OFFSETS[i], LENGTHS[i] - Crc32c.LENGTH);
                    sink += crc.verify(BUFFERS[i], OFFSETS[i], LENGTHS[i]) ? 1 : 0;
                }
            })).as("finish and verify, %s", strategy).isZero();
        }
        assertThat(sink).isNotZero();
    }

    @Test
    void flyweightAccessAllocatesNothing() {
        assertThat(allocatedBytes(() -> {
            for (int i = 0; i < BUFFERS.length; i++) {
                readAndRewrite(BUFFERS[i], OFFSETS[i]);
            }
        })).isZero();
        assertThat(sink).isNotZero();
    }

    private void readAndRewrite(MutableDirectBuffer buffer, int offset) {
        final int type = buffer.getByte(offset + HeaderFlyweight.TYPE_FIELD_OFFSET) & 0xFF;
        switch (type) {
            case PacketType.WRITE, PacketType.SEND -> {
                final DataFlyweight d = fly.data().wrap(buffer, offset);
                sink += d.magic() + d.version() + d.flags() + d.pathId() + d.pathGeneration() + d.connectionId()
                        + d.sessionTag() + d.bodyLength() + d.reserved() + d.psn() + d.timestampNs() + d.writeId()
                        + d.messageSequence() + d.regionKey() + d.streamId() + d.messageOffset() + d.messageLength()
                        + d.base() + d.payloadIndex() + d.payloadLength() + d.frameLength() + d.crc()
                        + (d.isLast() ? 1 : 0) + (d.isWrite() ? 1 : 0);
                d.psn(d.psn()).timestampNs(d.timestampNs()).message(d.message()).target(d.target())
                        .messageOffset(d.messageOffset()).messageLength(d.messageLength()).base(d.base());
                d.putHeader(d.type(), d.flags(), d.pathId(), d.pathGeneration(), d.connectionId(), d.sessionTag(),
                        d.bodyLength());
            }
            case PacketType.ACK -> {
                final AckFlyweight a = fly.ack().wrap(buffer, offset);
                sink += a.cumulativePsn() + a.ecnCount() + a.echoTimestampNs() + a.rateHintBytesPerSecond();
                for (int w = 0; w < AckFlyweight.SACK_WORDS; w++) {
                    sink += a.sackWord(w);
                    a.sackWord(w, a.sackWord(w));
                }
                for (int bit = 0; bit < AckFlyweight.SACK_BITS; bit += 17) {
                    a.sackBit(bit, a.sackBit(bit));
                }
                a.cumulativePsn(a.cumulativePsn()).ecnCount(a.ecnCount()).echoTimestampNs(a.echoTimestampNs())
                        .rateHintBytesPerSecond(a.rateHintBytesPerSecond());
            }
            case PacketType.HANDSHAKE_INIT -> {
                final HandshakeInitFlyweight h = fly.init().wrap(buffer, offset);
                sink += h.initiatorConnectionId() + h.nonceLow() + h.nonceHigh() + h.paths() + h.payloadBytes()
                        + h.initReserved();
                h.initiatorConnectionId(h.initiatorConnectionId()).nonce(h.nonceLow(), h.nonceHigh())
                        .paths(h.paths()).payloadBytes(h.payloadBytes());
            }
            case PacketType.HANDSHAKE_ACCEPT -> {
                final HandshakeAcceptFlyweight h = fly.accept().wrap(buffer, offset);
                sink += h.initiatorConnectionId() + h.acceptorConnectionId() + h.nonceLow() + h.nonceHigh()
                        + h.grantedSessionTag();
                h.acceptorConnectionId(h.acceptorConnectionId()).nonce(h.nonceLow(), h.nonceHigh())
                        .grantedSessionTag(h.grantedSessionTag());
            }
            case PacketType.PROBE, PacketType.PROBE_REPLY -> {
                final ProbeFlyweight p = fly.probe().wrap(buffer, offset);
                sink += p.probeSequence() + p.timestampNs() + p.echoTimestampNs() + (p.isReply() ? 1 : 0);
                p.probeSequence(p.probeSequence()).timestampNs(p.timestampNs());
            }
            case PacketType.CLOSE -> {
                final CloseFlyweight c = fly.close().wrap(buffer, offset);
                sink += c.reason();
                c.reason(c.reason());
            }
            case PacketType.RNR -> {
                final RnrFlyweight r = fly.rnr().wrap(buffer, offset);
                sink += r.streamId() + r.messageSequence() + r.retryAfterNs();
                r.streamId(r.streamId()).messageSequence(r.messageSequence()).retryAfterNs(r.retryAfterNs());
            }
            default -> sink--;
        }
    }
}
