package io.jccl.reduce;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorSpecies;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link Float16Kernels}' lane-wise binary16 conversions against the JDK's {@link Float#float16ToFloat} and
 * {@link Float#floatToFloat16}: every binary16 pattern decoded, and encoding of every float whose top 19 bits are
 * anything and whose 13 dropped bits sit on or next to a rounding boundary (0, 1, half, half ± 1, all ones), which
 * covers every exponent, every tie and every overflow and subnormal threshold; plus random floats.
 */
class Float16VectorConversionTest {
    private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
    private static final int[] LOW_BITS = {0x0000, 0x0001, 0x0FFF, 0x1000, 0x1001, 0x1FFF};

    @Test
    void widensEveryPatternLikeTheJdk() {
        int lanes = INTS.length();
        int[] bits = new int[lanes];
        float[] widened = new float[lanes];
        for (int base = 0; base < 0x10000; base += lanes) {
            for (int i = 0; i < lanes; i++) {
                bits[i] = base + i;
            }
            Float16Kernels.widen(IntVector.fromArray(INTS, bits, 0)).intoArray(widened, 0);
            for (int i = 0; i < lanes; i++) {
                float jdk = Float.float16ToFloat((short) bits[i]);
                if (Float.isNaN(jdk)) {
                    assertThat(widened[i]).as("0x%04x", bits[i]).isNaN();
                } else if (Float.floatToRawIntBits(widened[i]) != Float.floatToRawIntBits(jdk)) {
                    fail(String.format("0x%04x: %s, JDK %s", bits[i], widened[i], jdk));
                }
            }
        }
    }

    @Test
    void narrowsEveryFloatNearARoundingBoundaryLikeTheJdk() {
        int lanes = FLOATS.length();
        float[] values = new float[lanes];
        int[] narrowed = new int[lanes];
        int filled = 0;
        for (int high = 0; high < (1 << 19); high++) {
            for (int low : LOW_BITS) {
                values[filled++] = Float.intBitsToFloat((high << 13) | low);
                if (filled == lanes) {
                    check(values, narrowed);
                    filled = 0;
                }
            }
        }
        assertThat(filled).isZero();
    }

    @Property(tries = 3000)
    void narrowsRandomFloatsLikeTheJdk(@ForAll int bits) {
        float[] values = new float[FLOATS.length()];
        for (int i = 0; i < values.length; i++) {
            values[i] = Float.intBitsToFloat(bits + i * 0x0100_0001);
        }
        check(values, new int[values.length]);
    }

    private static void check(float[] values, int[] narrowed) {
        Float16Kernels.narrow(FloatVector.fromArray(FLOATS, values, 0)).intoArray(narrowed, 0);
        for (int i = 0; i < values.length; i++) {
            int jdk = Float.floatToFloat16(values[i]) & 0xFFFF;
            int actual = narrowed[i];
            if (Float.isNaN(values[i])) {
                if ((actual & 0xFFFF_0000) != 0 || !Float.isNaN(Float.float16ToFloat((short) actual))
                        || (actual & 0x8000) != (jdk & 0x8000)) {
                    fail(String.format("NaN 0x%08x gave 0x%x", Float.floatToRawIntBits(values[i]), actual));
                }
            } else if (actual != jdk) {
                fail(String.format("%s (0x%08x): 0x%x, JDK 0x%04x", values[i], Float.floatToRawIntBits(values[i]),
                        actual, jdk));
            }
        }
    }
}
