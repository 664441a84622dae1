package io.jccl.reduce;

import io.jccl.DataType;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/** Operand values and segments for the kernel tests. */
final class TestData {
    /** Where a test segment lives: native memory or a heap array of some primitive type. */
    enum Backing { NATIVE, BYTES, SHORTS, CHARS, INTS, FLOATS, LONGS, DOUBLES }

    private TestData() {
    }

    /**
     * Random operands for {@code type}, as raw bits: a mix of the type's special values (zeros, extremes,
     * infinities, NaNs, subnormals), small "ordinary" values whose sums and products need rounding, and
     * uniformly random bit patterns.
     *
     * @param type element type
     * @param random source of randomness
     * @param count how many
     * @return the bit patterns
     */
    static long[] operands(DataType type, SplittableRandom random, int count) {
        long[] specials = specials(type);
        long[] values = new long[count];
        for (int i = 0; i < count; i++) {
            int pick = random.nextInt(8);
            long bits;
            if (pick == 0) {
                bits = specials[random.nextInt(specials.length)];
            } else if (pick <= 3) {
                bits = ordinary(type, random);
            } else {
                bits = random.nextLong();
            }
            values[i] = bits & Elements.mask(type);
        }
        return values;
    }

    private static long ordinary(DataType type, SplittableRandom random) {
        double value = random.nextDouble(-8, 8);
        return switch (type) {
            case FLOAT32 -> Float.floatToRawIntBits((float) value);
            case FLOAT64 -> Double.doubleToRawLongBits(value);
            case FLOAT16 -> ReferenceFormat.FLOAT16.round(value);
            case BFLOAT16 -> ReferenceFormat.BFLOAT16.round(value);
            case FLOAT8_E4M3 -> ReferenceFormat.E4M3.round(value);
            case FLOAT8_E5M2 -> ReferenceFormat.E5M2.round(value);
            default -> random.nextLong(-300, 300);
        };
    }

    private static long[] specials(DataType type) {
        return switch (type) {
            case FLOAT32 -> new long[] {
                Float.floatToRawIntBits(0f), Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(1f),
                Float.floatToRawIntBits(-1f), Float.floatToRawIntBits(Float.POSITIVE_INFINITY),
                Float.floatToRawIntBits(Float.NEGATIVE_INFINITY), 0x7FC0_0000L, 0x7F80_0001L, 0xFFC0_1234L,
                Float.floatToRawIntBits(Float.MAX_VALUE), Float.floatToRawIntBits(-Float.MAX_VALUE),
                Float.floatToRawIntBits(Float.MIN_VALUE), Float.floatToRawIntBits(-Float.MIN_NORMAL)};
            case FLOAT64 -> new long[] {
                Double.doubleToRawLongBits(0d), Double.doubleToRawLongBits(-0d), Double.doubleToRawLongBits(1d),
                Double.doubleToRawLongBits(-1d), Double.doubleToRawLongBits(Double.POSITIVE_INFINITY),
                Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY), 0x7FF8_0000_0000_0000L,
                0x7FF0_0000_0000_0001L, 0xFFF8_0000_0000_1234L, Double.doubleToRawLongBits(Double.MAX_VALUE),
                Double.doubleToRawLongBits(-Double.MAX_VALUE), Double.doubleToRawLongBits(Double.MIN_VALUE),
                Double.doubleToRawLongBits(-Double.MIN_NORMAL)};
            case FLOAT16 -> smallSpecials(ReferenceFormat.FLOAT16);
            case BFLOAT16 -> smallSpecials(ReferenceFormat.BFLOAT16);
            case FLOAT8_E4M3 -> smallSpecials(ReferenceFormat.E4M3);
            case FLOAT8_E5M2 -> smallSpecials(ReferenceFormat.E5M2);
            default -> {
                long mask = Elements.mask(type);
                long signBit = (mask >>> 1) + 1;
                yield new long[] {0, 1, mask, signBit, signBit - 1, signBit + 1, 2, mask - 1};
            }
        };
    }

    private static long[] smallSpecials(ReferenceFormat format) {
        int sign = format.signBit;
        int nan = sign - 1;
        int infinity = format.ieeeSpecials ? (((1 << format.exponentBits) - 1) << format.fractionBits) : nan;
        int one = format.round(1.0);
        int minNormal = 1 << format.fractionBits;
        return new long[] {0, sign, one, one | sign, format.maxFiniteCode, format.maxFiniteCode | sign, 1, 1 | sign,
            minNormal, minNormal | sign, infinity, infinity | sign, nan, nan | sign, minNormal - 1};
    }

    /**
     * A segment of at least {@code sizeBytes} bytes, filled with random bytes.
     *
     * @param backing native or which heap array
     * @param sizeBytes minimum size
     * @param arena allocates native segments
     * @param random fills the bytes
     * @return the segment
     */
    static MemorySegment segment(Backing backing, long sizeBytes, Arena arena, SplittableRandom random) {
        int bytes = Math.toIntExact(sizeBytes);
        MemorySegment segment = switch (backing) {
            case NATIVE -> arena.allocate(Math.max(1, bytes), 64);
            case BYTES -> MemorySegment.ofArray(new byte[bytes]);
            case SHORTS -> MemorySegment.ofArray(new short[(bytes + 1) / 2]);
            case CHARS -> MemorySegment.ofArray(new char[(bytes + 1) / 2]);
            case INTS -> MemorySegment.ofArray(new int[(bytes + 3) / 4]);
            case FLOATS -> MemorySegment.ofArray(new float[(bytes + 3) / 4]);
            case LONGS -> MemorySegment.ofArray(new long[(bytes + 7) / 8]);
            case DOUBLES -> MemorySegment.ofArray(new double[(bytes + 7) / 8]);
        };
        for (long i = 0; i + 8 <= segment.byteSize(); i += 8) {
            segment.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, i, random.nextLong());
        }
        return segment;
    }
}
