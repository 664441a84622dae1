package io.jccl.net.tcp;

import io.jccl.net.NetException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;

/**
 * The TCP transport's wire format: the hello frame a connecting side sends first, and the header in front of
 * every message. All integers are big-endian (network order).
 *
 * <pre>
 * hello frame, {@value #HELLO_BYTES} bytes, once per connection, connector to listener:
 *   0  int32   magic   0x4A43434C ("JCCL")
 *   4  uint16  version {@value #VERSION}
 *   6  uint16  flags   0
 *   8  int32   rank of the connecting side (informational, for logs)
 *  12  int32   reserved 0
 *  16  byte[16] the listener's token, copied from its handle
 *
 * message header, {@value #HEADER_BYTES} bytes, in front of each message's payload:
 *   0  int32   magic   0x4A434D47 ("JCMG")
 *   4  int32   flags   0
 *   8  int64   tag
 *  16  int64   payload length in bytes, 0 to {@value #MAX_MESSAGE_BYTES}
 * </pre>
 *
 * Everything read from the network is checked here before it is used.
 */
final class Wire {
    /** Magic number opening a hello frame ("JCCL"). */
    static final int HELLO_MAGIC = 0x4A43434C;
    /** Magic number opening a message header ("JCMG"). */
    static final int HEADER_MAGIC = 0x4A434D47;
    /** The protocol version this code speaks. */
    static final int VERSION = 1;
    /** Size of the hello frame. */
    static final int HELLO_BYTES = 32;
    /** Size of a message header. */
    static final int HEADER_BYTES = 24;
    /** Size of the listener token. */
    static final int TOKEN_BYTES = 16;
    /** Largest message: 1 TiB, NCCL's {@code NCCL_MAX_NET_SIZE_BYTES}. A larger length is a protocol error. */
    static final long MAX_MESSAGE_BYTES = 1L << 40;

    private Wire() {
    }

    /** Writes a hello frame at the buffer's position. */
    static void putHello(ByteBuffer out, int rank, byte[] token) {
        out.putInt(HELLO_MAGIC).putShort((short) VERSION).putShort((short) 0).putInt(rank).putInt(0).put(token);
    }

    /**
     * Checks a complete hello frame.
     *
     * @param hello         the {@value #HELLO_BYTES} bytes, from index 0
     * @param expectedToken the listener's token
     * @return null when the hello is valid, otherwise why it is not
     */
    static String checkHello(ByteBuffer hello, byte[] expectedToken) {
        int magic = hello.getInt(0);
        if (magic != HELLO_MAGIC) {
            return "bad magic 0x" + Integer.toHexString(magic) + " (expected 0x" + Integer.toHexString(HELLO_MAGIC)
                    + ")";
        }
        int version = Short.toUnsignedInt(hello.getShort(4));
        if (version != VERSION) {
            return "unsupported protocol version " + version + " (this side speaks " + VERSION + ")";
        }
        int flags = Short.toUnsignedInt(hello.getShort(6));
        int reserved = hello.getInt(12);
        if (flags != 0 || reserved != 0) {
            return "nonzero reserved fields (flags=" + flags + ", reserved=" + reserved + ")";
        }
        if (hello.getInt(8) < 0) {
            return "negative rank " + hello.getInt(8);
        }
        byte[] token = new byte[TOKEN_BYTES];
        hello.get(16, token);
        if (!MessageDigest.isEqual(token, expectedToken)) {
            return "wrong token";
        }
        return null;
    }

    /** @return the connecting rank named in a hello frame that {@link #checkHello} accepted */
    static int helloRank(ByteBuffer hello) {
        return hello.getInt(8);
    }

    /** Writes a message header at the buffer's position. */
    static void putHeader(ByteBuffer out, long tag, long payloadBytes) {
        out.putInt(HEADER_MAGIC).putInt(0).putLong(tag).putLong(payloadBytes);
    }

    /**
     * Checks the message header at {@code index} and returns its payload length.
     *
     * @param in    holds the header
     * @param index where it starts
     * @param connection names the connection, for the error
     * @return the payload length, between 0 and {@link #MAX_MESSAGE_BYTES}
     * @throws NetException with {@link NetException.Reason#PROTOCOL_ERROR} for a bad magic, flags or length
     */
    static long checkHeader(ByteBuffer in, int index, String connection) {
        int magic = in.getInt(index);
        if (magic != HEADER_MAGIC) {
            throw badHeader(connection, "bad magic 0x" + Integer.toHexString(magic) + " (expected 0x"
                    + Integer.toHexString(HEADER_MAGIC) + ")");
        }
        int flags = in.getInt(index + 4);
        if (flags != 0) {
            throw badHeader(connection, "unknown flags 0x" + Integer.toHexString(flags));
        }
        long length = in.getLong(index + 16);
        if (length < 0 || length > MAX_MESSAGE_BYTES) {
            throw badHeader(connection, "impossible length " + length + " (must be 0 to " + MAX_MESSAGE_BYTES + ")");
        }
        return length;
    }

    private static NetException badHeader(String connection, String what) {
        return new NetException(NetException.Reason.PROTOCOL_ERROR, "the peer of " + connection
                + " sent a message header with " + what);
    }

    /** @return the tag of the message header at {@code index} */
    static long headerTag(ByteBuffer in, int index) {
        return in.getLong(index + 8);
    }
}
