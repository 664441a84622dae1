package io.jccl.net;

import java.nio.ByteBuffer;
import java.util.function.Function;

/**
 * The part the transports' listener handles share: the magic number and version a handle starts with (its token is a
 * {@link HandleToken}). For transport implementations; the layout after the version is each transport's own.
 */
public final class HandleFormat {
    private HandleFormat() {
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
    public static void readMagicAndVersion(ByteBuffer in, int magic, int version,
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
