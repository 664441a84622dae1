package io.jccl.reduce;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.FloatRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Float8E4M3} and {@link Float8E5M2}: all 256 patterns decoded against the textbook formula, round trips,
 * every tie, overflow and specials, and random floats (whole range, ordinary range, subnormal range) against a
 * brute-force nearest-even search over all 256 values.
 */
class Float8Test {
    /** The two formats with their production codecs and reference. */
    enum Format {
        E4M3(ReferenceFormat.E4M3, b -> Float8E4M3.toFloat((byte) b), f -> Float8E4M3.fromFloat(f) & 0xFF,
                448f),
        E5M2(ReferenceFormat.E5M2, b -> Float8E5M2.toFloat((byte) b), f -> Float8E5M2.fromFloat(f) & 0xFF,
                57344f);

        final ReferenceFormat ref;
        final IntFunction<Float> decode;
        final ToIntFunction<Float> encode;
        final float max;

        Format(ReferenceFormat ref, IntFunction<Float> decode, ToIntFunction<Float> encode, float max) {
            this.ref = ref;
            this.decode = decode;
            this.encode = encode;
            this.max = max;
        }

        int encode(float value) {
            return encode.applyAsInt(value);
        }

        float decode(int bits) {
            return decode.apply(bits);
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void decodesEveryPatternByTheFormula(Format format) {
        for (int bits = 0; bits < 256; bits++) {
            format.ref.assertDecodes(bits, format.decode(bits));
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void roundTripsEveryPattern(Format format) {
        for (int bits = 0; bits < 256; bits++) {
            int encoded = format.encode(format.decode(bits));
            if (format.ref.isNaN(bits)) {
                assertThat(format.ref.isNaN(encoded)).as("0x%02x stays NaN", bits).isTrue();
            } else {
                assertThat(encoded).as("0x%02x", bits).isEqualTo(bits);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void roundsEveryTieToEvenAndNeighboursToNearest(Format format) {
        for (int code = 0; code < format.ref.maxFiniteCode; code++) {
            for (int sign : new int[] {0, 0x80}) {
                float low = format.decode(sign | code);
                float high = format.decode(sign | (code + 1));
                float midpoint = (low + high) / 2; // exact: fp8 values have few bits
                int even = (code & 1) == 0 ? sign | code : sign | (code + 1);
                assertThat(format.encode(midpoint)).as("tie %s between %s and %s", midpoint, low, high)
                        .isEqualTo(even);
                assertThat(format.encode(adjacent(midpoint, -1))).isEqualTo(sign | code);
                assertThat(format.encode(adjacent(midpoint, 1))).isEqualTo(sign | (code + 1));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void saturatesFiniteOverflow(Format format) {
        int max = format.ref.maxFiniteCode;
        for (float value : new float[] {format.max, Math.nextUp(format.max), format.max * 1.0625f,
                format.max * 1.125f, format.max * 2, 1e30f, Float.MAX_VALUE}) {
            assertThat(format.encode(value)).as("%s", value).isEqualTo(max);
            assertThat(format.encode(-value)).as("%s", -value).isEqualTo(0x80 | max);
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void handlesZerosInfinitiesNaNAndTinyValues(Format format) {
        assertThat(format.encode(0f)).isZero();
        assertThat(format.encode(-0f)).isEqualTo(0x80);
        float minSubnormal = format.decode(1);
        assertThat(format.encode(minSubnormal / 2)).as("tie with zero goes to zero").isZero();
        assertThat(format.encode(-minSubnormal / 2)).isEqualTo(0x80);
        assertThat(format.encode(minSubnormal * 0.75f)).isEqualTo(1);
        assertThat(format.encode(Float.MIN_VALUE)).isZero();
        assertThat(format.ref.isNaN(format.encode(Float.NaN))).isTrue();
        if (format == Format.E5M2) {
            assertThat(format.encode(Float.POSITIVE_INFINITY)).isEqualTo(0x7C);
            assertThat(format.encode(Float.NEGATIVE_INFINITY)).isEqualTo(0xFC);
        } else {
            assertThat(format.encode(Float.POSITIVE_INFINITY)).as("E4M3 has no infinity").isEqualTo(0x7F);
            assertThat(format.encode(Float.NEGATIVE_INFINITY)).isEqualTo(0xFF);
        }
    }

    /** Floats as jqwik draws them (edge values, ordinary ones) and from random bit patterns (NaNs, subnormals). */
    @Property(tries = 2000)
    void matchesBruteForceOnAnyFloat(@ForAll float value, @ForAll int bits) {
        checkBoth(value);
        checkBoth(Float.intBitsToFloat(bits));
    }

    @Property(tries = 2000)
    void matchesBruteForceInTheFiniteRange(@ForAll @FloatRange(min = -70000f, max = 70000f) float value) {
        checkBoth(value);
        checkBoth(value / 128);
    }

    @Property(tries = 2000)
    void matchesBruteForceInTheSubnormalRange(@ForAll @FloatRange(min = -0.02f, max = 0.02f) float value) {
        checkBoth(value);
        checkBoth(value / 4096);
    }

    /** The float next to a non-zero one: {@code step} -1 toward zero, +1 away from it. */
    private static float adjacent(float value, int step) {
        return Float.intBitsToFloat(Float.floatToRawIntBits(value) + step);
    }

    private static void checkBoth(float value) {
        for (Format format : Format.values()) {
            format.ref.assertEncodes(value, format.encode(value));
        }
    }
}
