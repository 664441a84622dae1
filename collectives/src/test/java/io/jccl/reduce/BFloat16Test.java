package io.jccl.reduce;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link BFloat16}: exhaustive decoding and round trips, every tie, and random floats against a BigDecimal
 * reference.
 */
class BFloat16Test {
    private static final ReferenceFormat REF = ReferenceFormat.BFLOAT16;

    @Test
    void decodesEveryPatternExactly() {
        for (int bits = 0; bits < 0x10000; bits++) {
            float decoded = BFloat16.toFloat((short) bits);
            REF.assertDecodes(bits, decoded);
            if (REF.isNaN(bits)) {
                assertThat(Float.floatToRawIntBits(decoded)).as("NaN 0x%04x keeps sign and payload", bits)
                        .isEqualTo(bits << 16);
            }
        }
    }

    @Test
    void roundTripsEveryPattern() {
        for (int bits = 0; bits < 0x10000; bits++) {
            short encoded = BFloat16.fromFloat(BFloat16.toFloat((short) bits));
            if (REF.isNaN(bits)) {
                assertThat(REF.isNaN(encoded & 0xFFFF)).as("0x%04x stays NaN", bits).isTrue();
                assertThat(encoded & 0x0040).as("0x%04x becomes quiet", bits).isEqualTo(0x0040);
                assertThat(encoded & 0x8000).as("0x%04x keeps its sign", bits).isEqualTo(bits & 0x8000);
            } else {
                assertThat(encoded & 0xFFFF).as("0x%04x", bits).isEqualTo(bits);
            }
        }
    }

    @Test
    void roundsEveryTieToEvenAndNeighboursToNearest() {
        // Every float halfway between two adjacent bfloat16 values (the last pair is MAX and infinity), and the
        // floats just below and above it.
        for (int code = 0; code <= REF.maxFiniteCode; code++) {
            for (int sign : new int[] {0, 0x8000}) {
                int low = sign | code;
                int high = sign | (code + 1);
                int midpoint = (low << 16) | 0x8000;
                int even = (code & 1) == 0 ? low : high;
                assertThat(BFloat16.fromFloat(Float.intBitsToFloat(midpoint)) & 0xFFFF)
                        .as("tie between 0x%04x and 0x%04x", low, high).isEqualTo(even);
                assertThat(BFloat16.fromFloat(Float.intBitsToFloat(midpoint - 1)) & 0xFFFF).isEqualTo(low);
                assertThat(BFloat16.fromFloat(Float.intBitsToFloat(midpoint + 1)) & 0xFFFF).isEqualTo(high);
            }
        }
    }

    @Test
    void keepsSignedZerosInfinitiesAndNaN() {
        assertThat(BFloat16.fromFloat(0f)).isEqualTo((short) 0x0000);
        assertThat(BFloat16.fromFloat(-0f)).isEqualTo((short) 0x8000);
        assertThat(BFloat16.fromFloat(Float.POSITIVE_INFINITY)).isEqualTo((short) 0x7F80);
        assertThat(BFloat16.fromFloat(Float.NEGATIVE_INFINITY)).isEqualTo((short) 0xFF80);
        assertThat(BFloat16.fromFloat(Float.MAX_VALUE)).as("rounds up to infinity").isEqualTo((short) 0x7F80);
        assertThat(Float.isNaN(BFloat16.toFloat(BFloat16.fromFloat(Float.NaN)))).isTrue();
        assertThat(BFloat16.fromFloat(Float.intBitsToFloat(0x7F80_0001)) & 0xFFFF)
                .as("signalling NaN with payload only in the dropped bits stays NaN").isEqualTo(0x7FC0);
        assertThat(BFloat16.fromFloat(Float.intBitsToFloat(0xFF80_0001)) & 0xFFFF).isEqualTo(0xFFC0);
        assertThat(BFloat16.toFloat(BFloat16.MAX_VALUE_BITS)).isEqualTo((float) REF.maxFinite());
    }

    /** Floats as jqwik draws them (edge values, ordinary ones) and from random bit patterns (NaNs, subnormals). */
    @Property(tries = 3000)
    void matchesBigDecimalReference(@ForAll float value, @ForAll int bits) {
        check(value);
        check(Float.intBitsToFloat(bits));
    }

    private static void check(float value) {
        REF.assertEncodes(value, BFloat16.fromFloat(value) & 0xFFFF);
    }
}
