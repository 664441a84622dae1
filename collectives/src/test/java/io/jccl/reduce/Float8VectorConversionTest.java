package io.jccl.reduce;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorSpecies;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The 8-bit float kernels' lane-wise conversions against the scalar codecs ({@link Float8E4M3},
 * {@link Float8E5M2}, themselves checked against a brute-force reference in {@link Float8Test}): all 256 patterns
 * decoded, and encoding of every float whose upper bits are anything and whose dropped fraction bits sit on or
 * next to a rounding boundary (every exponent, tie, saturation and subnormal threshold), plus random floats.
 */
class Float8VectorConversionTest {
    private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;

    /** A format's vector conversions and scalar codec. */
    enum Format {
        E4M3(20, Float8E4M3Kernels::widen, Float8E4M3Kernels::narrow, b -> Float8E4M3.toFloat((byte) b),
                f -> Float8E4M3.fromFloat(f) & 0xFF),
        E5M2(21, Float8E5M2Kernels::widen, Float8E5M2Kernels::narrow, b -> Float8E5M2.toFloat((byte) b),
                f -> Float8E5M2.fromFloat(f) & 0xFF);

        /** Float fraction bits the format drops. */
        final int droppedBits;
        final Function<IntVector, FloatVector> widen;
        final Function<FloatVector, IntVector> narrow;
        final IntFunction<Float> decode;
        final ToIntFunction<Float> encode;

        Format(int droppedBits, Function<IntVector, FloatVector> widen, Function<FloatVector, IntVector> narrow,
               IntFunction<Float> decode, ToIntFunction<Float> encode) {
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
        int lanes = INTS.length();
        int[] bits = new int[lanes];
        float[] widened = new float[lanes];
        for (int base = 0; base < 256; base += lanes) {
            for (int i = 0; i < lanes; i++) {
                bits[i] = (base + i) & 0xFF;
            }
            format.widen.apply(IntVector.fromArray(INTS, bits, 0)).intoArray(widened, 0);
            for (int i = 0; i < lanes; i++) {
                float expected = format.decode.apply(bits[i]);
                if (Float.isNaN(expected)) {
                    assertThat(widened[i]).as("0x%02x", bits[i]).isNaN();
                } else if (Float.floatToRawIntBits(widened[i]) != Float.floatToRawIntBits(expected)) {
                    fail(String.format("%s 0x%02x: %s, codec %s", format, bits[i], widened[i], expected));
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void narrowsEveryFloatNearARoundingBoundaryLikeTheCodec(Format format) {
        int half = 1 << (format.droppedBits - 1);
        int[] lowBits = {0, 1, half - 1, half, half + 1, (half << 1) - 1};
        float[] values = new float[FLOATS.length()];
        int[] narrowed = new int[values.length];
        int filled = 0;
        for (int high = 0; high < (1 << (32 - format.droppedBits)); high++) {
            for (int low : lowBits) {
                values[filled++] = Float.intBitsToFloat((high << format.droppedBits) | low);
                if (filled == values.length) {
                    check(format, values, narrowed);
                    filled = 0;
                }
            }
        }
        assertThat(filled).isZero();
    }

    @Property(tries = 2000)
    void narrowsRandomFloatsLikeTheCodec(@ForAll int bits) {
        float[] values = new float[FLOATS.length()];
        for (int i = 0; i < values.length; i++) {
            values[i] = Float.intBitsToFloat(bits + i * 0x0100_0001);
        }
        for (Format format : Format.values()) {
            check(format, values, new int[values.length]);
        }
    }

    private static void check(Format format, float[] values, int[] narrowed) {
        format.narrow.apply(FloatVector.fromArray(FLOATS, values, 0)).intoArray(narrowed, 0);
        for (int i = 0; i < values.length; i++) {
            int expected = format.encode.applyAsInt(values[i]);
            if (narrowed[i] != expected) {
                fail(String.format("%s %s (0x%08x): 0x%x, codec 0x%02x", format, values[i],
                        Float.floatToRawIntBits(values[i]), narrowed[i], expected));
            }
        }
    }
}
