package io.jccl.reduce;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The staged float kernels' lane-wise conversions ({@code widenBlock}, {@code narrowBlock}) against the scalar
 * codecs: the JDK's {@link Float#float16ToFloat} and {@link Float#floatToFloat16} for binary16, {@link Float8E4M3}
 * and {@link Float8E5M2} (themselves checked against a brute-force reference in {@link Float8Test}) for the 8-bit
 * formats. Every pattern decoded, and encoding of every float whose upper bits are anything and whose dropped
 * fraction bits sit on or next to a rounding boundary (0, 1, half, half ± 1, all ones: every exponent, tie,
 * overflow, saturation and subnormal threshold), plus random floats.
 */
class VectorConversionTest {
    /** Floats per {@code narrowBlock} call: a multiple of every lane count. */
    private static final int BATCH = 6 * 64;

    /** {@code widenBlock} of a kernel class. */
    @FunctionalInterface
    interface Widen {
        void run(MemorySegment src, long srcOffset, float[] out, int outIndex, int count);
    }

    /** {@code narrowBlock} of a kernel class. */
    @FunctionalInterface
    interface Narrow {
        void run(float[] in, int inIndex, MemorySegment dst, long dstOffset, int count);
    }

    /**
     * A format's vector conversions and scalar codec.
     *
     * @param name the format's name, for the test names and messages
     * @param sizeBytes bytes per element: 2 or 1
     * @param droppedBits float fraction bits the format drops
     * @param exactNaN whether NaNs encode to the codec's exact bits
     */
    record Format(String name, int sizeBytes, int droppedBits, Widen widen, Narrow narrow, IntFunction<Float> decode,
                  ToIntFunction<Float> encode, boolean exactNaN) {
        /**
         * The vector binary16 encoding turns every NaN into the quiet NaN {@code 0x7E00} with its sign, where the
         * JDK keeps the payload's top bits: for its NaNs only NaN-ness and the sign are compared.
         */
        static final List<Format> ALL = List.of(
                new Format("FLOAT16", Short.BYTES, 13, Float16Kernels::widenBlock, Float16Kernels::narrowBlock,
                        b -> Float.float16ToFloat((short) b), f -> Float.floatToFloat16(f) & 0xFFFF, false),
                new Format("E4M3", Byte.BYTES, 20, Float8E4M3Kernels::widenBlock, Float8E4M3Kernels::narrowBlock,
                        b -> Float8E4M3.toFloat((byte) b), f -> Float8E4M3.fromFloat(f) & 0xFF, true),
                new Format("E5M2", Byte.BYTES, 21, Float8E5M2Kernels::widenBlock, Float8E5M2Kernels::narrowBlock,
                        b -> Float8E5M2.toFloat((byte) b), f -> Float8E5M2.fromFloat(f) & 0xFF, true));

        @Override
        public String toString() {
            return name;
        }

        /** @return a heap segment of {@code count} elements over an array of the format's lane type */
        MemorySegment segment(int count) {
            return sizeBytes == Short.BYTES ? MemorySegment.ofArray(new short[count])
                    : MemorySegment.ofArray(new byte[count]);
        }

        int get(MemorySegment segment, int index) {
            return sizeBytes == Short.BYTES ? segment.getAtIndex(ValueLayout.JAVA_SHORT, index) & 0xFFFF
                    : segment.get(ValueLayout.JAVA_BYTE, index) & 0xFF;
        }

        void set(MemorySegment segment, int index, int bits) {
            if (sizeBytes == Short.BYTES) {
                segment.setAtIndex(ValueLayout.JAVA_SHORT, index, (short) bits);
            } else {
                segment.set(ValueLayout.JAVA_BYTE, index, (byte) bits);
            }
        }

        int signBit() {
            return 1 << (8 * sizeBytes - 1);
        }
    }

    static List<Format> formats() {
        return Format.ALL;
    }

    @ParameterizedTest
    @MethodSource("formats")
    void widensEveryPatternLikeTheCodec(Format format) {
        int patternCount = 1 << (8 * format.sizeBytes());
        MemorySegment patterns = format.segment(patternCount);
        for (int bits = 0; bits < patternCount; bits++) {
            format.set(patterns, bits, bits);
        }
        float[] widened = new float[patternCount];
        format.widen().run(patterns, 0, widened, 0, patternCount);
        for (int bits = 0; bits < patternCount; bits++) {
            float expected = format.decode().apply(bits);
            if (Float.isNaN(expected)) {
                assertThat(widened[bits]).as("%s 0x%x", format, bits).isNaN();
            } else if (Float.floatToRawIntBits(widened[bits]) != Float.floatToRawIntBits(expected)) {
                fail(String.format("%s 0x%x: %s, codec %s", format, bits, widened[bits], expected));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("formats")
    void narrowsEveryFloatNearARoundingBoundaryLikeTheCodec(Format format) {
        int half = 1 << (format.droppedBits() - 1);
        int[] lowBits = {0, 1, half - 1, half, half + 1, (half << 1) - 1};
        float[] values = new float[BATCH];
        MemorySegment narrowed = format.segment(BATCH);
        int filled = 0;
        for (int high = 0; high < (1 << (32 - format.droppedBits())); high++) {
            for (int low : lowBits) {
                values[filled++] = Float.intBitsToFloat((high << format.droppedBits()) | low);
                if (filled == BATCH) {
                    check(format, values, narrowed);
                    filled = 0;
                }
            }
        }
        assertThat(filled).isZero();
    }

    @Property(tries = 300)
    void narrowsRandomFloatsLikeTheCodec(@ForAll int bits) {
        float[] values = new float[BATCH];
        for (int i = 0; i < values.length; i++) {
            values[i] = Float.intBitsToFloat(bits + i * 0x0100_0001);
        }
        for (Format format : Format.ALL) {
            check(format, values, format.segment(BATCH));
        }
    }

    private static void check(Format format, float[] values, MemorySegment narrowed) {
        format.narrow().run(values, 0, narrowed, 0, values.length);
        for (int i = 0; i < values.length; i++) {
            int expected = format.encode().applyAsInt(values[i]);
            int actual = format.get(narrowed, i);
            if (Float.isNaN(values[i]) && !format.exactNaN()) {
                int sign = format.signBit();
                if (!Float.isNaN(format.decode().apply(actual)) || (actual & sign) != (expected & sign)) {
                    fail(String.format("%s NaN 0x%08x gave 0x%x", format, Float.floatToRawIntBits(values[i]), actual));
                }
            } else if (actual != expected) {
                fail(String.format("%s %s (0x%08x): 0x%x, codec 0x%x", format, values[i],
                        Float.floatToRawIntBits(values[i]), actual, expected));
            }
        }
    }
}
