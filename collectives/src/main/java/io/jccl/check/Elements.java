package io.jccl.check;

import io.jccl.DataType;
import io.jccl.reduce.BFloat16;
import io.jccl.reduce.Float8E4M3;
import io.jccl.reduce.Float8E5M2;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Elements as raw bits in a {@code long}: integers sign- or zero-extended by type, floats as their bit
 * pattern. Reads and writes at any alignment.
 */
public final class Elements {
    private Elements() {
    }

    /**
     * @param seg   memory
     * @param index element index from the start of {@code seg}
     * @param type  element type
     * @return the element's bits, normalized
     */
    public static long get(MemorySegment seg, long index, DataType type) {
        long off = index * type.sizeBytes();
        return switch (type) {
            case INT8 -> seg.get(ValueLayout.JAVA_BYTE, off);
            case UINT8, FLOAT8_E4M3, FLOAT8_E5M2 -> seg.get(ValueLayout.JAVA_BYTE, off) & 0xFFL;
            case FLOAT16, BFLOAT16 -> seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, off) & 0xFFFFL;
            case INT32 -> seg.get(ValueLayout.JAVA_INT_UNALIGNED, off);
            case UINT32, FLOAT32 -> seg.get(ValueLayout.JAVA_INT_UNALIGNED, off) & 0xFFFF_FFFFL;
            case INT64, UINT64, FLOAT64 -> seg.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
        };
    }

    /**
     * Writes the low bits of {@code bits}.
     *
     * @param seg   memory
     * @param index element index
     * @param type  element type
     * @param bits  the value's bits
     */
    public static void set(MemorySegment seg, long index, DataType type, long bits) {
        long off = index * type.sizeBytes();
        switch (type.sizeBytes()) {
            case 1 -> seg.set(ValueLayout.JAVA_BYTE, off, (byte) bits);
            case 2 -> seg.set(ValueLayout.JAVA_SHORT_UNALIGNED, off, (short) bits);
            case 4 -> seg.set(ValueLayout.JAVA_INT_UNALIGNED, off, (int) bits);
            default -> seg.set(ValueLayout.JAVA_LONG_UNALIGNED, off, bits);
        }
    }

    /** @return {@code v} truncated to the type's width and sign- or zero-extended (integers only) */
    public static long normalize(DataType type, long v) {
        return switch (type) {
            case INT8 -> (byte) v;
            case UINT8, FLOAT8_E4M3, FLOAT8_E5M2 -> v & 0xFF;
            case FLOAT16, BFLOAT16 -> v & 0xFFFF;
            case INT32 -> (int) v;
            case UINT32, FLOAT32 -> v & 0xFFFF_FFFFL;
            default -> v;
        };
    }

    /** @return the value of float bits as a double (exact) */
    public static double toDouble(DataType type, long bits) {
        return switch (type) {
            case FLOAT16 -> Float.float16ToFloat((short) bits);
            case BFLOAT16 -> BFloat16.toFloat((short) bits);
            case FLOAT32 -> Float.intBitsToFloat((int) bits);
            case FLOAT64 -> Double.longBitsToDouble(bits);
            case FLOAT8_E4M3 -> Float8E4M3.toFloat((byte) bits);
            case FLOAT8_E5M2 -> Float8E5M2.toFloat((byte) bits);
            default -> throw new IllegalArgumentException(type + " is not a floating-point type");
        };
    }

    /**
     * @return the bits of {@code v} in the type: FLOAT64 directly, the others rounded to float first and then
     *         to the type, each to nearest even (the same two roundings JCCL's kernels do)
     */
    public static long fromDouble(DataType type, double v) {
        float f = (float) v;
        return switch (type) {
            case FLOAT16 -> Float.floatToFloat16(f) & 0xFFFFL;
            case BFLOAT16 -> BFloat16.fromFloat(f) & 0xFFFFL;
            case FLOAT32 -> Float.floatToRawIntBits(f) & 0xFFFF_FFFFL;
            case FLOAT64 -> Double.doubleToRawLongBits(v);
            case FLOAT8_E4M3 -> Float8E4M3.fromFloat(f) & 0xFFL;
            case FLOAT8_E5M2 -> Float8E5M2.fromFloat(f) & 0xFFL;
            default -> throw new IllegalArgumentException(type + " is not a floating-point type");
        };
    }

    /** @return a readable value, e.g. {@code 3.5} or {@code -7} */
    public static String format(DataType type, long bits) {
        return type.isFloatingPoint() ? Double.toString(toDouble(type, bits))
                : type == DataType.UINT64 ? Long.toUnsignedString(bits) : Long.toString(bits);
    }
}
