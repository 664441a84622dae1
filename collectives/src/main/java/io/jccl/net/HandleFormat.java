package io.jccl.net;

import java.nio.ByteBuffer;
import java.util.function.Function;

/**
 * The parts the transports' listener handles share: the token a handle carries and the magic number and version it
 * starts with. For transport implementations; the layout after the version is each transport's own.
 */
public final class HandleFormat {
    private HandleFormat() {
    }

    /**
     * @param token      a handle's token
     * @param tokenBytes how many bytes a token has
     * @return a copy of {@code token}, so that the handle's stays as it was made
     * @throws IllegalArgumentException when the token does not have {@code tokenBytes} bytes
     */
    public static byte[] copyToken(byte[] token, int tokenBytes) {
        if (token.length != tokenBytes) {
            throw new IllegalArgumentException("token must have " + tokenBytes + " bytes, not " + token.length);
        }
        return token.clone();
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
