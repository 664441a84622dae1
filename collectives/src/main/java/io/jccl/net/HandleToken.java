package io.jccl.net;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The secret a listener's handle carries and a connecting side presents, as the transports' handles hold it: its
 * bytes are copied on the way in and out, so a token never changes, and two tokens are equal when their bytes are.
 * {@link #toString()} does not show the bytes. For transport implementations.
 *
 * @param bytes the token's bytes
 */
public record HandleToken(byte[] bytes) {
    /** Copies {@code bytes}. */
    public HandleToken {
        bytes = bytes.clone();
    }

    /**
     * @param bytes  a handle's token
     * @param length how many bytes a token of this transport has
     * @return the token
     * @throws IllegalArgumentException when {@code bytes} does not have {@code length} bytes
     */
    public static HandleToken of(byte[] bytes, int length) {
        if (bytes.length != length) {
            throw new IllegalArgumentException("token must have " + length + " bytes, not " + bytes.length);
        }
        return new HandleToken(bytes);
    }

    /**
     * Reads a token at the buffer's position.
     *
     * @param in     a handle's bytes
     * @param length how many bytes a token of this transport has
     * @return the token
     */
    public static HandleToken read(ByteBuffer in, int length) {
        byte[] bytes = new byte[length];
        in.get(bytes);
        return new HandleToken(bytes);
    }

    /** @return a copy of the token's bytes */
    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    /**
     * Writes the token at the buffer's position.
     *
     * @param out a handle being encoded
     * @return {@code out}
     */
    public ByteBuffer put(ByteBuffer out) {
        return out.put(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HandleToken t && Arrays.equals(t.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "HandleToken[" + bytes.length + " bytes]";
    }
}
