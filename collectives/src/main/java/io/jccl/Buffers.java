package io.jccl;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** Turns the heap-array and ByteBuffer forms of the API into segments, checking element sizes. */
final class Buffers {
    private Buffers() {
    }

    static MemorySegment of(byte[] a, DataType type, String name) {
        return a == null ? null : MemorySegment.ofArray(a);
    }

    static MemorySegment of(short[] a, DataType type, String name) {
        return a == null ? null : MemorySegment.ofArray(checkElement(a, 2, type, name, "short[]"));
    }

    static MemorySegment of(int[] a, DataType type, String name) {
        return a == null ? null : MemorySegment.ofArray(checkElement(a, 4, type, name, "int[]"));
    }

    static MemorySegment of(long[] a, DataType type, String name) {
        return a == null ? null : MemorySegment.ofArray(checkElement(a, 8, type, name, "long[]"));
    }

    static MemorySegment of(float[] a, DataType type, String name) {
        return a == null ? null : MemorySegment.ofArray(checkElement(a, 4, type, name, "float[]"));
    }

    static MemorySegment of(double[] a, DataType type, String name) {
        return a == null ? null : MemorySegment.ofArray(checkElement(a, 8, type, name, "double[]"));
    }

    static MemorySegment of(ByteBuffer b, DataType type, String name) {
        return b == null ? null : MemorySegment.ofBuffer(b);
    }

    private static <T> T checkElement(T array, int elementBytes, DataType type, String name, String arrayType) {
        if (type != null && type.sizeBytes() != elementBytes) {
            throw JcclException.invalidArgument(name + " is a " + arrayType + " (" + elementBytes
                    + "-byte elements) but type " + type + " has " + type.sizeBytes()
                    + "-byte elements; use a matching array, a byte[] or a MemorySegment");
        }
        return array;
    }
}
