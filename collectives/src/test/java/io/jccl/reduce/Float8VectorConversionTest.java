package io.jccl.reduce;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The 8-bit float kernels' lane-wise conversions ({@code widenBlock}, {@code narrowBlock}) against the scalar
 * codecs ({@link Float8E4M3}, {@link Float8E5M2}, themselves checked against a brute-force reference in
 * {@link Float8Test}): all 256 patterns decoded, and encoding of every float whose upper bits are anything and
 * whose dropped fraction bits sit on or next to a rounding boundary (every exponent, tie, saturation and subnormal
 * threshold), plus random floats.
 */
class Float8VectorConversionTest {
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

    /** A format's vector conversions and scalar codec. */
    enum Format {
        E4M3(20, Float8E4M3Kernels::widenBlock, Float8E4M3Kernels::narrowBlock, b -> Float8E4M3.toFloat((byte) b),
                f -> Float8E4M3.fromFloat(f) & 0xFF),
        E5M2(21, Float8E5M2Kernels::widenBlock, Float8E5M2Kernels::narrowBlock, b -> Float8E5M2.toFloat((byte) b),
                f -> Float8E5M2.fromFloat(f) & 0xFF);

        /** Float fraction bits the format drops. */
        final int droppedBits;
        final Widen widen;
        final Narrow narrow;
        final IntFunction<Float> decode;
        final ToIntFunction<Float> encode;

        Format(int droppedBits, Widen widen, Narrow narrow, IntFunction<Float> decode, ToIntFunction<Float> encode) {
            this.droppedBits = droppedBits;
            this.widen = widen;
            this.narrow = narrow;
            this.decode = decode;
            this.encode = encode;
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void widensEveryPatternLikeTheCodec(Format format) {
        MemorySegment patterns = MemorySegment.ofArray(new byte[256]);
        for (int bits = 0; bits < 256; bits++) {
            patterns.set(ValueLayout.JAVA_BYTE, bits, (byte) bits);
        }
        float[] widened = new float[256];
        format.widen.run(patterns, 0, widened, 0, 256);
        for (int bits = 0; bits < 256; bits++) {
            float expected = format.decode.apply(bits);
            if (Float.isNaN(expected)) {
                assertThat(widened[bits]).as("0x%02x", bits).isNaN();
            } else if (Float.floatToRawIntBits(widened[bits]) != Float.floatToRawIntBits(expected)) {
                fail(String.format("%s 0x%02x: %s, codec %s", format, bits, widened[bits], expected));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void narrowsEveryFloatNearARoundingBoundaryLikeTheCodec(Format format) {
        int half = 1 << (format.droppedBits - 1);
        int[] lowBits = {0, 1, half - 1, half, half + 1, (half << 1) - 1};
        float[] values = new float[BATCH];
        MemorySegment narrowed = MemorySegment.ofArray(new byte[BATCH]);
        int filled = 0;
        for (int high = 0; high < (1 << (32 - format.droppedBits)); high++) {
            for (int low : lowBits) {
                values[filled++] = Float.intBitsToFloat((high << format.droppedBits) | low);
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
        for (Format format : Format.values()) {
            check(format, values, MemorySegment.ofArray(new byte[BATCH]));
        }
    }

    private static void check(Format format, float[] values, MemorySegment narrowed) {
        format.narrow.run(values, 0, narrowed, 0, values.length);
        for (int i = 0; i < values.length; i++) {
            int expected = format.encode.applyAsInt(values[i]);
            int actual = narrowed.get(ValueLayout.JAVA_BYTE, i) & 0xFF;
            if (actual != expected) {
                fail(String.format("%s %s (0x%08x): 0x%x, codec 0x%02x", format, values[i],
                        Float.floatToRawIntBits(values[i]), actual, expected));
            }
        }
    }
}
