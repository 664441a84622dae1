package io.jccl.net.aeron;

import java.nio.ByteOrder;
import java.security.MessageDigest;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The hello frame a connecting side writes once on a listener's hello stream, shared by the Aeron transports
 * (each with its own magic). One Aeron fragment; all integers little-endian.
 *
 * <pre>
 * {@value #BYTES} bytes:
 *   0  int32   magic (the transport's)
 *   4  uint16  version {@value #VERSION}
 *   6  uint16  flags 0
 *   8  int32   rank of the connecting side (for logs)
 *  12  int32   the data stream id the connecting side publishes the connection's messages on
 *  16  int64   the transport's detail: aeron-ipc the connecting pid, aeron-udp the data publication's session id
 *  24  byte[16] the listener's token, from its handle
 * </pre>
 */
public final class HelloFrame {
    /** The frame's length. */
    public static final int BYTES = 40;
    /** The only version spoken. */
    public static final int VERSION = 1;
    /** Length of the listener's token. */
    public static final int TOKEN_BYTES = 16;

    private HelloFrame() {
    }

    /** @return a new frame with these fields (once per connection, so allocating is fine) */
    static UnsafeBuffer encode(int magic, int rank, int dataStreamId, long detail, byte[] token) {
        UnsafeBuffer frame = new UnsafeBuffer(new byte[BYTES]);
        frame.putInt(0, magic, ByteOrder.LITTLE_ENDIAN);
        frame.putShort(4, (short) VERSION, ByteOrder.LITTLE_ENDIAN);
        frame.putShort(6, (short) 0, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(8, rank, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(12, dataStreamId, ByteOrder.LITTLE_ENDIAN);
        frame.putLong(16, detail, ByteOrder.LITTLE_ENDIAN);
        frame.putBytes(24, token);
        return frame;
    }

    /**
     * @return null when the frame is a well-formed hello of this magic carrying {@code token} (compared in constant
     *         time), otherwise why not
     */
    static String problem(DirectBuffer buffer, int offset, int length, int magic, byte[] token) {
        if (length != BYTES) {
            return "it has " + length + " bytes instead of " + BYTES;
        }
        int presentedMagic = buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
        if (presentedMagic != magic) {
            return "bad magic 0x" + Integer.toHexString(presentedMagic);
        }
        int version = Short.toUnsignedInt(buffer.getShort(offset + 4, ByteOrder.LITTLE_ENDIAN));
        if (version != VERSION) {
            return "unsupported version " + version + " (this side speaks " + VERSION + ")";
        }
        if (buffer.getShort(offset + 6, ByteOrder.LITTLE_ENDIAN) != 0) {
            return "nonzero flags";
        }
        if (rank(buffer, offset) < 0) {
            return "negative rank";
        }
        byte[] presented = new byte[TOKEN_BYTES];
        buffer.getBytes(offset + 24, presented);
        return MessageDigest.isEqual(presented, token) ? null : "wrong token";
    }

    static int rank(DirectBuffer buffer, int offset) {
        return buffer.getInt(offset + 8, ByteOrder.LITTLE_ENDIAN);
    }

    static int dataStreamId(DirectBuffer buffer, int offset) {
        return buffer.getInt(offset + 12, ByteOrder.LITTLE_ENDIAN);
    }

    static long detail(DirectBuffer buffer, int offset) {
        return buffer.getLong(offset + 16, ByteOrder.LITTLE_ENDIAN);
    }
}
