package io.jccl.net.aeron;

import java.lang.foreign.MemorySegment;
import org.agrona.DirectBuffer;

/**
 * Addresses Aeron's mapped logs as {@link MemorySegment}s, so that a payload moves between a log and any caller
 * segment (native, or heap of any primitive array) with one {@link MemorySegment#copy} and nothing allocated.
 *
 * <p>One segment spans the whole address space; a frame is reached at its absolute address
 * ({@link DirectBuffer#addressOffset()} of an off-heap buffer plus the frame's offset). The bounds that matter are
 * the frame's, which Aeron gives and this transport checks before copying. A log is only touched while its
 * publication or image is open, and Aeron keeps a closed log mapped for its resource linger time, which covers a
 * copy in flight when another thread closes the connection.
 */
public final class LogMemory {
    /** All of the address space. */
    @SuppressWarnings("restricted")
    public static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private LogMemory() {
    }

    /**
     * @param buffer an off-heap buffer over a mapped log (a term, or a claimed frame)
     * @param index  an index in that buffer
     * @return the absolute address of that byte, an offset into {@link #EVERYTHING}
     */
    public static long address(DirectBuffer buffer, int index) {
        if (buffer.byteArray() != null) {
            throw new IllegalStateException("an Aeron log buffer on the heap: the log is not mapped memory");
        }
        return buffer.addressOffset() + index;
    }
}
