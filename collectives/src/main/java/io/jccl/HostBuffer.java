package io.jccl;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Host memory as a {@link Buffer}: a {@link MemorySegment}, and, when it was made from a heap array other than
 * {@code byte[]}, the array's element size, which every operation checks against its {@link DataType} (a
 * {@code float[]} cannot carry {@link DataType#FLOAT64}). Made by the {@code Buffer.of} factories; immutable.
 */
public final class HostBuffer implements Buffer {
    private final MemorySegment segment;
    private final String source;
    private final int elementBytes;

    HostBuffer(MemorySegment segment, String source, int elementBytes) {
        this.segment = Objects.requireNonNull(segment, "segment");
        this.source = source;
        this.elementBytes = elementBytes;
    }

    /** @return the memory */
    public MemorySegment segment() {
        return segment;
    }

    /** @return what the buffer was made from ({@code float[]}, {@code ByteBuffer}, {@code MemorySegment}, ...) */
    public String source() {
        return source;
    }

    /** @return the element size in bytes that a data type must have, 0 when any type fits */
    public int elementBytes() {
        return elementBytes;
    }

    @Override
    public long byteSize() {
        return segment.byteSize();
    }

    /** The view keeps the element size check; the range is in bytes. */
    @Override
    public HostBuffer slice(long offsetBytes, long sizeBytes) {
        DeviceBufferSlice.checkRange("slice", segment.byteSize(), offsetBytes, sizeBytes);
        return new HostBuffer(segment.asSlice(offsetBytes, sizeBytes), source, elementBytes);
    }

    @Override
    public String toString() {
        return "HostBuffer[" + source + ", " + segment.byteSize() + " bytes]";
    }
}
