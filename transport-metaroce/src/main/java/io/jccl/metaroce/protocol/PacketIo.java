package io.jccl.metaroce.protocol;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Offsets and accessors of wire format v1 (docs/metaroce-wire.md) used by the core to build and read packets.
 * Little-endian throughout.
 */
final class PacketIo {
    static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    static final short MAGIC = 0x524D;
    static final byte VERSION = 1;

    static final byte WRITE = 1;
    static final byte SEND = 2;
    static final byte ACK = 3;
    static final byte HANDSHAKE_INIT = 16;
    static final byte HANDSHAKE_ACCEPT = 17;
    static final byte PROBE = 18;
    static final byte PROBE_REPLY = 19;
    static final byte CLOSE = 20;
    static final byte RNR = 21;

    static final int FLAG_LAST = 1;
    static final int FLAG_ACK_REQUESTED = 2;
    static final int FLAG_RETRANSMISSION = 4;

    // Common header.
    static final int O_MAGIC = 0;
    static final int O_VERSION = 2;
    static final int O_TYPE = 3;
    static final int O_FLAGS = 4;
    static final int O_PATH = 5;
    static final int O_GENERATION = 6;
    static final int O_CONNECTION = 8;
    static final int O_SESSION = 12;
    static final int O_BODY_LENGTH = 16;
    static final int COMMON = 20;
    static final int CRC_BYTES = 4;

    // DATA.
    static final int O_PSN = 20;
    static final int O_TIMESTAMP = 24;
    static final int O_MESSAGE = 32;
    static final int O_TARGET = 36;
    static final int O_OFFSET = 40;
    static final int O_MESSAGE_LENGTH = 48;
    static final int O_BASE = 56;
    static final int DATA_HEADER = 64;

    // ACK.
    static final int O_CUMULATIVE = 20;
    static final int O_ECN = 24;
    static final int O_ECHO = 28;
    static final int O_RATE = 36;
    static final int O_SACK = 44;
    static final int ACK_LENGTH = 76 + CRC_BYTES;

    // Control.
    static final int O_INIT_ID = 20;
    static final int O_INIT_NONCE = 24;
    static final int O_INIT_PATHS = 40;
    static final int O_INIT_PAYLOAD = 42;
    static final int O_INIT_MAC = 44;
    static final int INIT_LENGTH = 76 + CRC_BYTES;
    static final int O_ACCEPT_ID = 20;
    static final int O_ACCEPT_NONCE = 24;
    static final int O_ACCEPT_TAG = 40;
    static final int O_ACCEPT_MAC = 44;
    static final int ACCEPT_LENGTH = 76 + CRC_BYTES;
    static final int O_PROBE_SEQ = 20;
    static final int O_PROBE_TS = 24;
    static final int PROBE_LENGTH = 32 + CRC_BYTES;
    static final int O_CLOSE_REASON = 20;
    static final int CLOSE_LENGTH = 24 + CRC_BYTES;
    static final int O_RNR_STREAM = 20;
    static final int O_RNR_MESSAGE = 24;
    static final int O_RNR_RETRY = 28;
    static final int RNR_LENGTH = 36 + CRC_BYTES;

    private PacketIo() {
    }

    static void header(MutableDirectBuffer b, int type, int flags, int path, int generation, int connection,
                       int session, int bodyLength) {
        b.putShort(O_MAGIC, MAGIC, LE);
        b.putByte(O_VERSION, VERSION);
        b.putByte(O_TYPE, (byte) type);
        b.putByte(O_FLAGS, (byte) flags);
        b.putByte(O_PATH, (byte) path);
        b.putShort(O_GENERATION, (short) generation, LE);
        b.putInt(O_CONNECTION, connection, LE);
        b.putInt(O_SESSION, session, LE);
        b.putShort(O_BODY_LENGTH, (short) bodyLength, LE);
        b.putShort(18, (short) 0, LE);
    }

    static int type(DirectBuffer b, int o) {
        return b.getByte(o + O_TYPE);
    }

    static int flags(DirectBuffer b, int o) {
        return b.getByte(o + O_FLAGS) & 0xFF;
    }

    static int path(DirectBuffer b, int o) {
        return b.getByte(o + O_PATH) & 0xFF;
    }

    static int generation(DirectBuffer b, int o) {
        return b.getShort(o + O_GENERATION, LE) & 0xFFFF;
    }

    static int connection(DirectBuffer b, int o) {
        return b.getInt(o + O_CONNECTION, LE);
    }

    static int session(DirectBuffer b, int o) {
        return b.getInt(o + O_SESSION, LE);
    }

    static int bodyLength(DirectBuffer b, int o) {
        return b.getShort(o + O_BODY_LENGTH, LE) & 0xFFFF;
    }

    /** Writes the CRC32C trailer over the first {@code length} bytes of a byte[]-backed buffer. */
    static int finish(CRC32C crc, byte[] bytes, int length) {
        crc.reset();
        crc.update(bytes, 0, length);
        int value = (int) crc.getValue();
        bytes[length] = (byte) value;
        bytes[length + 1] = (byte) (value >>> 8);
        bytes[length + 2] = (byte) (value >>> 16);
        bytes[length + 3] = (byte) (value >>> 24);
        return length + CRC_BYTES;
    }
}
