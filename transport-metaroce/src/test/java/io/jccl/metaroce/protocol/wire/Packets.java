package io.jccl.metaroce.protocol.wire;

import java.util.random.RandomGenerator;

import org.agrona.MutableDirectBuffer;

/** Builds valid packets of every type, with random field values, for tests and the fuzz seed corpus. */
final class Packets {
    /** Every type code of wire format v1. */
    static final int[] TYPES = {
            PacketType.WRITE, PacketType.SEND, PacketType.ACK, PacketType.HANDSHAKE_INIT,
            PacketType.HANDSHAKE_ACCEPT, PacketType.PROBE, PacketType.PROBE_REPLY, PacketType.CLOSE, PacketType.RNR};

    /** A key for the handshake MACs of built packets. */
    static final byte[] KEY = HandshakeCrypto.deriveHandshakeKey("test rendezvous secret".getBytes());

    private final PacketFlyweights fly = new PacketFlyweights();
    private final Crc32c crc = new Crc32c();
    private final HandshakeCrypto crypto = new HandshakeCrypto(KEY);

    /**
     * Writes a valid packet of a type.
     *
     * @param type          a type code
     * @param buffer        where to write
     * @param offset        where the packet starts
     * @param payloadLength DATA payload length, 1-65000 (ignored for other types)
     * @param random        field values
     * @return the packet's length, CRC included
     */
    int write(int type, MutableDirectBuffer buffer, int offset, int payloadLength, RandomGenerator random) {
        int dataFlags = random.nextInt(Flags.SEND_FLAGS + 1);
        if (type == PacketType.WRITE && payloadLength > DataFlyweight.IMMEDIATE_LENGTH && random.nextInt(4) == 0) {
            dataFlags |= Flags.IMMEDIATE | Flags.LAST;   // the body's last 4 bytes are the immediate
        }
        final int flags = PacketType.isData(type) ? dataFlags : 0;
        final int pathId = random.nextInt(HeaderFlyweight.MAX_PATH_ID + 1);
        final int generation = random.nextInt(1 << 16);
        final int connectionId = random.nextInt();
        final int sessionTag = random.nextInt();
        final int lengthWithoutCrc = switch (type) {
            case PacketType.WRITE, PacketType.SEND -> {
                fly.data().wrap(buffer, offset)
                        .putHeader(type, flags, pathId, generation, connectionId, sessionTag, payloadLength)
                        .psn(random.nextInt()).timestampNs(random.nextLong()).message(random.nextInt())
                        .target(random.nextInt()).messageOffset(random.nextLong() >>> 1)
                        .messageLength(random.nextLong() >>> 1)
                        .base(type == PacketType.WRITE ? random.nextLong() >>> 1 : 0);
                for (int i = 0; i < payloadLength; i++) {
                    buffer.putByte(fly.data().payloadIndex() + i, (byte) random.nextInt());
                }
                yield DataFlyweight.DATA_HEADER_LENGTH + payloadLength;
            }
            case PacketType.ACK -> {
                fly.ack().wrap(buffer, offset).putHeader(pathId, generation, connectionId, sessionTag)
                        .cumulativePsn(random.nextInt()).ecnCount(random.nextInt())
                        .echoTimestampNs(random.nextLong()).rateHintBytesPerSecond(random.nextLong());
                for (int w = 0; w < AckFlyweight.SACK_WORDS; w++) {
                    fly.ack().sackWord(w, random.nextLong());
                }
                yield AckFlyweight.FRAME_LENGTH - Crc32c.LENGTH;
            }
            case PacketType.HANDSHAKE_INIT -> {
                fly.init().wrap(buffer, offset).putHeader(pathId, generation)
                        .initiatorConnectionId(random.nextInt()).nonce(random.nextLong(), random.nextLong())
                        .paths(random.nextInt(1, 65)).payloadBytes(random.nextInt(256, 65001));
                crypto.signInit(buffer, offset);
                yield HandshakeInitFlyweight.FRAME_LENGTH - Crc32c.LENGTH;
            }
            case PacketType.HANDSHAKE_ACCEPT -> {
                fly.accept().wrap(buffer, offset).putHeader(pathId, generation, connectionId)
                        .acceptorConnectionId(random.nextInt()).nonce(random.nextLong(), random.nextLong())
                        .grantedSessionTag(random.nextInt());
                crypto.signAccept(buffer, offset, random.nextLong(), random.nextLong());
                yield HandshakeAcceptFlyweight.FRAME_LENGTH - Crc32c.LENGTH;
            }
            case PacketType.PROBE, PacketType.PROBE_REPLY -> {
                fly.probe().wrap(buffer, offset).putHeader(type, 0, pathId, generation, connectionId, sessionTag, 0)
                        .probeSequence(random.nextInt()).timestampNs(random.nextLong());
                yield ProbeFlyweight.FRAME_LENGTH - Crc32c.LENGTH;
            }
            case PacketType.CLOSE -> {
                fly.close().wrap(buffer, offset).putHeader(type, 0, pathId, generation, connectionId, sessionTag, 0)
                        .reason(random.nextInt());
                yield CloseFlyweight.FRAME_LENGTH - Crc32c.LENGTH;
            }
            case PacketType.RNR -> {
                fly.rnr().wrap(buffer, offset).putHeader(type, 0, pathId, generation, connectionId, sessionTag, 0)
                        .streamId(random.nextInt()).messageSequence(random.nextInt())
                        .retryAfterNs(random.nextLong());
                yield RnrFlyweight.FRAME_LENGTH - Crc32c.LENGTH;
            }
            default -> throw new IllegalArgumentException("type " + type);
        };
        return crc.finish(buffer, offset, lengthWithoutCrc);
    }

    /**
     * @param type a type code
     * @return the frame length of a packet of that type with a payload of {@code payloadLength} (DATA)
     */
    static int frameLength(int type, int payloadLength) {
        return HeaderFlyweight.HEADER_LENGTH + PacketType.typeHeaderLength(type)
                + (PacketType.isData(type) ? payloadLength : 0) + Crc32c.LENGTH;
    }

    /** Rewrites a packet's CRC after its bytes were changed. */
    void refreshCrc(MutableDirectBuffer buffer, int offset, int length) {
        crc.finish(buffer, offset, length - Crc32c.LENGTH);
    }
}
