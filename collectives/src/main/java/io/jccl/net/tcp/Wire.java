package io.jccl.net.tcp;

import io.jccl.net.NetException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;

/**
 * The TCP transport's wire format: the hello frame a connecting side sends first on each of a connection's
 * sockets, the header in front of every message, and the header in front of every further stripe of a message
 * split across sockets. All integers are big-endian (network order).
 *
 * <pre>
 * hello frame, {@value #HELLO_BYTES} bytes, once per socket, connector to listener (or, flag REVERSE, back):
 *   0  int32   magic   0x4A43434C ("JCCL")
 *   4  uint16  version {@value #VERSION}
 *   6  uint16  flags   0, or one of: bit 0 OFFER (the connector offers the socket for the other direction too),
 *                      bit 1 REVERSE (the listening side takes an offered socket for its own sending)
 *   8  int32   rank of the sending side (informational, for logs)
 *  12  uint8   socket index, 0 to count - 1
 *  13  uint8   socket count of the connection, 1 to {@value #MAX_SOCKETS}
 *  14  uint16  reserved 0
 *  16  int64   connection id: random, the same on every socket of one connection
 *  24  byte[16] the token of the listener this hello is for, copied from its handle
 *  40  byte[16] the sender's own listener token (all zero when it has none): whom an OFFER comes from
 *
 * message header, {@value #HEADER_BYTES} bytes, on socket 0, in front of the message's first (or only) stripe:
 *   0  int32   magic   0x4A434D47 ("JCMG")
 *   4  int32   flags   bits 0-7: stripe count - 1 (0: the whole payload follows on socket 0); bit 8 BULK: the
 *                      payload follows on the sender's bulk sockets of a shared connection ({@link SocketLayout}),
 *                      none of it on socket 0; others 0
 *   8  int64   tag
 *  16  int64   payload length in bytes, 0 to {@value #MAX_MESSAGE_BYTES}
 *
 * stripe header, {@value #HEADER_BYTES} bytes, on every socket but 0, in front of the stripe it carries:
 *   0  int32   magic   0x4A435354 ("JCST")
 *   4  int32   the index of the socket it travels on
 *   8  int64   the message's tag
 *  16  int64   stripe length in bytes
 * </pre>
 *
 * A message of {@code n} stripes and length {@code L} is cut at {@link #stripeStart}: stripe {@code i} is the
 * contiguous range from {@code stripeStart(L, n, i)} to {@code stripeStart(L, n, i + 1)}. It travels on socket
 * {@code i}, or, for a BULK message, on the sender's {@code i}-th bulk socket.
 * A connection offered for both directions (hello flag OFFER) has {@code 1 + 2n} sockets laid out as
 * {@link SocketLayout} says, and sends only single-stripe messages on socket 0. Each socket carries its
 * stripes in message order, so every socket's byte stream stays FIFO and the receiver matches messages in the
 * order of the headers on socket 0.
 *
 * <p>Everything read from the network is checked here before it is used.
 */
final class Wire {
    /** Magic number opening a hello frame ("JCCL"). */
    static final int HELLO_MAGIC = 0x4A43434C;
    /** Magic number opening a message header ("JCMG"). */
    static final int HEADER_MAGIC = 0x4A434D47;
    /** Magic number opening a stripe header ("JCST"). */
    static final int STRIPE_MAGIC = 0x4A435354;
    /**
     * The protocol version this code speaks: 2 added the socket fields to the hello, and stripes; 3 the sender's
     * token and the OFFER and REVERSE flags (one socket for both directions between two ranks); 4 the layout of an
     * offered connection (1 + 2n sockets: a shared one, then each direction's bulk sockets) and the BULK flag.
     */
    static final int VERSION = 4;
    /** Size of the hello frame. */
    static final int HELLO_BYTES = 56;
    /** Hello flag: the connecting side offers this socket for the other direction as well. */
    static final int FLAG_OFFER = 1;
    /** Hello flag: sent back on an offered socket, which now carries the listening side's connection too. */
    static final int FLAG_REVERSE = 2;
    /** Message header flag: the payload travels on the sender's bulk sockets, none of it on socket 0. */
    static final int FLAG_BULK = 1 << 8;
    /** Size of a message header and of a stripe header. */
    static final int HEADER_BYTES = 24;
    /** Size of the listener token. */
    static final int TOKEN_BYTES = 16;
    /** Largest message: 1 TiB, NCCL's {@code NCCL_MAX_NET_SIZE_BYTES}. A larger length is a protocol error. */
    static final long MAX_MESSAGE_BYTES = 1L << 40;
    /** Most sockets one connection may have, as NCCL's {@code MAX_SOCKETS} (64) scaled to a JVM's threads. */
    static final int MAX_SOCKETS = 16;
    /**
     * Shortest stripe a peer may ask for: a message split into {@code n > 1} stripes must have at least
     * {@code n} times this many bytes. Keeps stripes nonempty after their boundaries are rounded to 64 bytes.
     */
    static final long MIN_STRIPE_BYTES = 4096;

    private Wire() {
    }

    /** Writes a hello frame without flags or sender token at the buffer's position. */
    static void putHello(ByteBuffer out, int rank, int socketIndex, int socketCount, long connectionId,
                         byte[] token) {
        putHello(out, 0, rank, socketIndex, socketCount, connectionId, token, new byte[TOKEN_BYTES]);
    }

    /** Writes a hello frame at the buffer's position. */
    static void putHello(ByteBuffer out, int flags, int rank, int socketIndex, int socketCount, long connectionId,
                         byte[] token, byte[] senderToken) {
        out.putInt(HELLO_MAGIC).putShort((short) VERSION).putShort((short) flags).putInt(rank)
                .put((byte) socketIndex).put((byte) socketCount).putShort((short) 0).putLong(connectionId).put(token)
                .put(senderToken);
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
        int reserved = Short.toUnsignedInt(hello.getShort(14));
        if ((flags != 0 && flags != FLAG_OFFER && flags != FLAG_REVERSE) || reserved != 0) {
            return "unknown flags or nonzero reserved fields (flags=" + flags + ", reserved=" + reserved + ")";
        }
        if (hello.getInt(8) < 0) {
            return "negative rank " + hello.getInt(8);
        }
        int count = helloSocketCount(hello);
        int index = helloSocketIndex(hello);
        if (count < 1 || count > MAX_SOCKETS || index >= count) {
            return "socket " + index + " of " + count + " (a connection has 1 to " + MAX_SOCKETS + " sockets)";
        }
        if (flags != 0 && !SocketLayout.isSharedSocketCount(count)) {
            return "an OFFER or REVERSE connection of " + count + " sockets (it has 1 + 2n, n >= 1)";
        }
        byte[] token = new byte[TOKEN_BYTES];
        hello.get(24, token);
        if (!MessageDigest.isEqual(token, expectedToken)) {
            return "wrong token";
        }
        return null;
    }

    /** @return the connecting rank named in a hello frame that {@link #checkHello} accepted */
    static int helloRank(ByteBuffer hello) {
        return hello.getInt(8);
    }

    /** @return the socket's index within its connection, from a checked hello frame */
    static int helloSocketIndex(ByteBuffer hello) {
        return Byte.toUnsignedInt(hello.get(12));
    }

    /** @return the connection's socket count, from a checked hello frame */
    static int helloSocketCount(ByteBuffer hello) {
        return Byte.toUnsignedInt(hello.get(13));
    }

    /** @return the connection id, from a checked hello frame */
    static long helloConnectionId(ByteBuffer hello) {
        return hello.getLong(16);
    }

    /** @return the flags, from a checked hello frame */
    static int helloFlags(ByteBuffer hello) {
        return Short.toUnsignedInt(hello.getShort(6));
    }

    /** @return the sender's own listener token, from a checked hello frame */
    static byte[] helloSenderToken(ByteBuffer hello) {
        byte[] token = new byte[TOKEN_BYTES];
        hello.get(40, token);
        return token;
    }

    /**
     * Writes a message header at the buffer's position.
     *
     * @param bulk whether the payload goes on the sender's bulk sockets ({@link #FLAG_BULK})
     */
    static void putHeader(ByteBuffer out, long tag, long payloadBytes, int stripes, boolean bulk) {
        out.putInt(HEADER_MAGIC).putInt((stripes - 1) | (bulk ? FLAG_BULK : 0)).putLong(tag).putLong(payloadBytes);
    }

    /** Writes the header of the stripe that travels on socket {@code socket} (at least 1) at the buffer's position. */
    static void putStripeHeader(ByteBuffer out, int socket, long tag, long stripeBytes) {
        out.putInt(STRIPE_MAGIC).putInt(socket).putLong(tag).putLong(stripeBytes);
    }

    /**
     * Checks the message header at {@code index} and returns its payload length.
     *
     * @param in          holds the header
     * @param index       where it starts
     * @param socketCount the sockets of the connection
     * @param layout      what the sender's sockets carry: it bounds the stripe count, and allows BULK messages
     *                    only where it has bulk sockets
     * @param connection  names the connection, for the error
     * @return the payload length, between 0 and {@link #MAX_MESSAGE_BYTES}
     * @throws NetException with {@link NetException.Reason#PROTOCOL_ERROR} for a bad magic, flags, stripe count or
     *                      length
     */
    static long checkHeader(ByteBuffer in, int index, int socketCount, SocketLayout layout, String connection) {
        int magic = in.getInt(index);
        if (magic != HEADER_MAGIC) {
            throw badHeader(connection, "bad magic 0x" + Integer.toHexString(magic) + " (expected 0x"
                    + Integer.toHexString(HEADER_MAGIC) + ")");
        }
        int flags = in.getInt(index + 4);
        if ((flags & ~(0xFF | FLAG_BULK)) != 0) {
            throw badHeader(connection, "unknown flags 0x" + Integer.toHexString(flags));
        }
        long length = in.getLong(index + 16);
        if (length < 0 || length > MAX_MESSAGE_BYTES) {
            throw badHeader(connection, "impossible length " + length + " (must be 0 to " + MAX_MESSAGE_BYTES + ")");
        }
        int stripes = (flags & 0xFF) + 1;
        boolean bulk = (flags & FLAG_BULK) != 0;
        if (bulk && !layout.shared()) {
            throw badHeader(connection, "the BULK flag, but the connection has no bulk sockets (it was not offered"
                    + " for both directions)");
        }
        int most = bulk ? layout.bulkCount() : layout.shared() ? 1 : socketCount;
        if (stripes > most) {
            throw badHeader(connection, stripes + (bulk ? " bulk" : "") + " stripes, but the connection has "
                    + most + (bulk ? " bulk socket" : layout.shared() ? " shared socket" : " socket")
                    + (most == 1 ? "" : "s") + " for them");
        }
        if (stripes > 1 && length < stripes * MIN_STRIPE_BYTES) {
            throw badHeader(connection, stripes + " stripes for only " + length + " bytes (at least "
                    + MIN_STRIPE_BYTES + " bytes per stripe)");
        }
        return length;
    }

    /** @return the stripe count of a message header that {@link #checkHeader} accepted */
    static int headerStripes(ByteBuffer in, int index) {
        return (in.getInt(index + 4) & 0xFF) + 1;
    }

    /** @return whether a message header that {@link #checkHeader} accepted has its payload on the bulk sockets */
    static boolean headerBulk(ByteBuffer in, int index) {
        return (in.getInt(index + 4) & FLAG_BULK) != 0;
    }

    /** @return the tag of the message header at {@code index} */
    static long headerTag(ByteBuffer in, int index) {
        return in.getLong(index + 8);
    }

    /**
     * Checks the stripe header at {@code index} against what the message header on socket 0 announced.
     *
     * @throws NetException with {@link NetException.Reason#PROTOCOL_ERROR} when it differs
     */
    static void checkStripeHeader(ByteBuffer in, int index, int socket, long tag, long stripeBytes, String connection) {
        int magic = in.getInt(index);
        int gotSocket = in.getInt(index + 4);
        long gotTag = in.getLong(index + 8);
        long gotBytes = in.getLong(index + 16);
        if (magic != STRIPE_MAGIC || gotSocket != socket || gotTag != tag || gotBytes != stripeBytes) {
            throw new NetException(NetException.Reason.PROTOCOL_ERROR, "the peer of " + connection + " sent a stripe"
                    + " header (magic 0x" + Integer.toHexString(magic) + ", socket " + gotSocket + ", tag " + gotTag
                    + ", " + gotBytes + " bytes) where a stripe of " + stripeBytes + " bytes of the message with tag "
                    + tag + " was due on socket " + socket);
        }
    }

    /**
     * Where stripe {@code i} of a message starts: 0 for the first, the length for {@code i == stripes}, and
     * otherwise {@code i * length / stripes} rounded down to a multiple of 64 bytes (cache lines).
     *
     * @param length  the message length
     * @param stripes the stripe count, 1 to {@link #MAX_SOCKETS}
     * @param i       0 to {@code stripes}
     * @return the offset within the message
     */
    static long stripeStart(long length, int stripes, int i) {
        return i == stripes ? length : (i * length / stripes) & ~63L;
    }

    private static NetException badHeader(String connection, String what) {
        return new NetException(NetException.Reason.PROTOCOL_ERROR, "the peer of " + connection
                + " sent a message header with " + what);
    }
}
