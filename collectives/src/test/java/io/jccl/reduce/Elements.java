package io.jccl.reduce;

import io.jccl.DataType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.jccl.reduce.LittleEndian.INT;
import static io.jccl.reduce.LittleEndian.LONG;
import static io.jccl.reduce.LittleEndian.SHORT;

/** Test access to elements as raw bit patterns: the low {@code 8 × sizeBytes} bits of a long, zero-extended. */
final class Elements {
    private Elements() {
    }

    /** @return the mask of a type's bits */
    static long mask(DataType type) {
        return type.sizeBytes() == 8 ? -1L : (1L << (8 * type.sizeBytes())) - 1;
    }

    /** Reads element {@code index} at {@code byteOffset + index × size}. */
    static long get(DataType type, MemorySegment segment, long byteOffset, long index) {
        long at = byteOffset + index * type.sizeBytes();
        return switch (type.sizeBytes()) {
            case 1 -> segment.get(ValueLayout.JAVA_BYTE, at) & 0xFFL;
            case 2 -> segment.get(SHORT, at) & 0xFFFFL;
            case 4 -> segment.get(INT, at) & 0xFFFF_FFFFL;
            default -> segment.get(LONG, at);
        };
    }

    /** Writes element {@code index} at {@code byteOffset + index × size}. */
    static void set(DataType type, MemorySegment segment, long byteOffset, long index, long bits) {
        long at = byteOffset + index * type.sizeBytes();
        switch (type.sizeBytes()) {
            case 1 -> segment.set(ValueLayout.JAVA_BYTE, at, (byte) bits);
            case 2 -> segment.set(SHORT, at, (short) bits);
            case 4 -> segment.set(INT, at, (int) bits);
            default -> segment.set(LONG, at, bits);
        }
    }

    /** Writes {@code values[0..count)} from element 0 at {@code byteOffset}. */
    static void write(DataType type, MemorySegment segment, long byteOffset, long[] values, int count) {
        for (int i = 0; i < count; i++) {
            set(type, segment, byteOffset, i, values[i]);
        }
    }

    /** @return a readable rendering of an element for failure messages */
    static String describe(DataType type, long bits) {
        String hex = "0x" + Long.toHexString(bits);
        return switch (type) {
            case FLOAT32 -> hex + " (" + Float.intBitsToFloat((int) bits) + ")";
            case FLOAT64 -> hex + " (" + Double.longBitsToDouble(bits) + ")";
            case FLOAT16 -> hex + " (" + ReferenceFormat.FLOAT16.decode((int) bits) + ")";
            case BFLOAT16 -> hex + " (" + ReferenceFormat.BFLOAT16.decode((int) bits) + ")";
            case FLOAT8_E4M3 -> hex + " (" + ReferenceFormat.E4M3.decode((int) bits) + ")";
            case FLOAT8_E5M2 -> hex + " (" + ReferenceFormat.E5M2.decode((int) bits) + ")";
            default -> hex;
        };
    }
}
