package io.jccl.net;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.Function;

/**
 * The part the transports' listener handles share: the magic number and version a handle starts with (its token is a
 * {@link HandleToken}). For transport implementations; the layout after the version is each transport's own.
 */
public final class HandleFormat {
    private HandleFormat() {
    }

    /**
     * Starts decoding a handle: checks that there is one of at least {@code minBytes}, then reads its magic number (an
     * int) and version (an unsigned byte).
     *
     * @param bytes     the handle as received
     * @param minBytes  the fewest bytes a handle of the transport has
     * @param order     the transport's byte order
     * @param magic     the transport's magic number
     * @param version   the version this side reads
     * @param malformed makes the exception for a handle that is not valid, from why it is not
     * @return the handle's bytes in {@code order}, positioned after the version
     * @throws NetException made by {@code malformed} when the handle is null, too short, or has another magic number
     *                      or version
     */
    public static ByteBuffer open(byte[] bytes, int minBytes, ByteOrder order, int magic, int version,
                                  Function<String, NetException> malformed) {
        if (bytes == null) {
            throw malformed.apply("it is null");
        }
        if (bytes.length < minBytes) {
            throw malformed.apply("it has " + bytes.length + " bytes, fewer than the " + minBytes + " it needs");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes).order(order);
        readMagicAndVersion(in, magic, version, malformed);
        return in;
    }

    /**
     * Reads a handle's magic number (an int) and version (an unsigned byte) at the buffer's position.
     *
     * @param in        the handle's bytes, in the transport's byte order
     * @param magic     the transport's magic number
     * @param version   the version this side reads
     * @param malformed makes the exception for a handle that is not valid, from why it is not
     * @throws NetException made by {@code malformed} when the magic number or the version is another
     */
    private static void readMagicAndVersion(ByteBuffer in, int magic, int version,
                                            Function<String, NetException> malformed) {
        int foundMagic = in.getInt();
        if (foundMagic != magic) {
            throw malformed.apply("bad magic 0x" + Integer.toHexString(foundMagic) + " (expected 0x"
                    + Integer.toHexString(magic) + "); is it a handle of another transport?");
        }
        int foundVersion = Byte.toUnsignedInt(in.get());
        if (foundVersion != version) {
            throw malformed.apply("unsupported version " + foundVersion + " (this side reads " + version + ")");
        }
    }
}
