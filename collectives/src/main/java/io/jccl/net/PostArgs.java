package io.jccl.net;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/** The argument checks every transport makes when a send or receive is posted, so they read the same everywhere. */
public final class PostArgs {
    private PostArgs() {
    }

    /**
     * Checks that {@code [offset, offset + sizeBytes)} lies in {@code buffer}, that the calling thread may use
     * {@code buffer}, and that the message is not larger than the transport carries.
     *
     * @param buffer          the message memory
     * @param offset          where the message starts in it
     * @param sizeBytes       the message length
     * @param maxMessageBytes the transport's largest message
     * @param transport       the transport's name, for the message
     * @throws NullPointerException      for a null buffer
     * @throws IndexOutOfBoundsException for a range outside the buffer
     * @throws IllegalArgumentException  for memory of another thread's confined arena, or a message too large
     */
    public static void check(MemorySegment buffer, long offset, long sizeBytes, long maxMessageBytes,
                             String transport) {
        Objects.requireNonNull(buffer, "buffer");
        Objects.checkFromIndexSize(offset, sizeBytes, buffer.byteSize());
        if (!buffer.isAccessibleBy(Thread.currentThread())) {
            throw new IllegalArgumentException("buffer is confined to another thread; a transport needs memory from a"
                    + " shared, global or automatic arena, or the heap");
        }
        if (sizeBytes > maxMessageBytes) {
            throw new IllegalArgumentException("message of " + sizeBytes + " bytes exceeds the " + transport
                    + " transport's maximum of " + maxMessageBytes);
        }
    }
}
