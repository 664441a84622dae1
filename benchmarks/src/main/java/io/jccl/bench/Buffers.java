package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.reduce.BFloat16;
import io.jccl.reduce.Float8E4M3;
import io.jccl.reduce.Float8E5M2;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * Three native operand buffers ({@code a}, {@code b}, {@code dst}) of one size, 64-byte aligned and filled with
 * ordinary values of the element type (floats in [0.5, 2), no NaN, infinity or subnormal), so every page is
 * touched before measuring: first touch of fresh memory costs far more than the kernels.
 */
final class Buffers implements AutoCloseable {
    /** Gap between the buffers: a multiple of the cache line (64) that is not one of 4 KiB. */
    static final long STAGGER_BYTES = 1024 + 64;

    final MemorySegment a;
    final MemorySegment b;
    final MemorySegment dst;
    final long count;
    private final Arena arena;

    /**
     * Allocates and fills the buffers.
     *
     * @param type element type
     * @param sizeBytes size of each buffer in bytes; a multiple of the element size
     */
    Buffers(DataType type, long sizeBytes) {
        if (sizeBytes % type.sizeBytes() != 0) {
            throw new IllegalArgumentException(sizeBytes + " bytes is no whole number of " + type + " elements");
        }
        this.arena = Arena.ofShared();
        this.count = sizeBytes / type.sizeBytes();
        // One block, the three buffers staggered by a little over 1 KiB, so a[i], b[i] and dst[i] never share
        // their address bits below 4 KiB: same-offset loads and stores would otherwise falsely depend on each
        // other (4K aliasing), by an amount that changed with where malloc happened to put three separate buffers.
        long stride = sizeBytes + STAGGER_BYTES;
        MemorySegment block = arena.allocate(3 * stride, 4096);
        this.a = block.asSlice(0, sizeBytes);
        this.b = block.asSlice(stride, sizeBytes);
        this.dst = block.asSlice(2 * stride, sizeBytes);
        fill(type, a, count, 1);
        fill(type, b, count, 2);
        fill(type, dst, count, 3);
    }

    private static void fill(DataType type, MemorySegment segment, long count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        for (long i = 0; i < count; i++) {
            float value = 0.5f + 1.5f * (float) random.nextDouble();
            switch (type) {
                case INT8, UINT8 -> segment.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
                case INT32, UINT32 -> segment.setAtIndex(ValueLayout.JAVA_INT, i, random.nextInt());
                case INT64, UINT64 -> segment.setAtIndex(ValueLayout.JAVA_LONG, i, random.nextLong());
                case FLOAT16 -> segment.setAtIndex(ValueLayout.JAVA_SHORT, i, Float.floatToFloat16(value));
                case BFLOAT16 -> segment.setAtIndex(ValueLayout.JAVA_SHORT, i, BFloat16.fromFloat(value));
                case FLOAT32 -> segment.setAtIndex(ValueLayout.JAVA_FLOAT, i, value);
                case FLOAT64 -> segment.setAtIndex(ValueLayout.JAVA_DOUBLE, i, value);
                case FLOAT8_E4M3 -> segment.set(ValueLayout.JAVA_BYTE, i, Float8E4M3.fromFloat(value));
                case FLOAT8_E5M2 -> segment.set(ValueLayout.JAVA_BYTE, i, Float8E5M2.fromFloat(value));
            }
        }
    }

    /** @return bytes one {@code dst = a ⊕ b} call moves: two reads and one write of the whole buffer */
    long bytesPerCall() {
        return 3 * a.byteSize();
    }

    @Override
    public void close() {
        arena.close();
    }
}
