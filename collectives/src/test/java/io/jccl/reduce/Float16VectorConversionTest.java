package io.jccl.reduce;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link Float16Kernels}' lane-wise binary16 conversions ({@link Float16Kernels#widenBlock},
 * {@link Float16Kernels#narrowBlock}) against the JDK's {@link Float#float16ToFloat} and
 * {@link Float#floatToFloat16}: every binary16 pattern decoded, and encoding of every float whose top 19 bits are
 * anything and whose 13 dropped bits sit on or next to a rounding boundary (0, 1, half, half ± 1, all ones), which
 * covers every exponent, every tie and every overflow and subnormal threshold; plus random floats.
 */
class Float16VectorConversionTest {
    /** Floats per {@link Float16Kernels#narrowBlock} call: a multiple of every lane count. */
    private static final int BATCH = 6 * 64;
    private static final int[] LOW_BITS = {0x0000, 0x0001, 0x0FFF, 0x1000, 0x1001, 0x1FFF};

    @Test
    void widensEveryPatternLikeTheJdk() {
        MemorySegment patterns = MemorySegment.ofArray(new short[0x10000]);
        for (int bits = 0; bits < 0x10000; bits++) {
            patterns.setAtIndex(ValueLayout.JAVA_SHORT, bits, (short) bits);
        }
        float[] widened = new float[0x10000];
        Float16Kernels.widenBlock(patterns, 0, widened, 0, 0x10000);
        for (int bits = 0; bits < 0x10000; bits++) {
            float jdk = Float.float16ToFloat((short) bits);
            if (Float.isNaN(jdk)) {
                assertThat(widened[bits]).as("0x%04x", bits).isNaN();
            } else if (Float.floatToRawIntBits(widened[bits]) != Float.floatToRawIntBits(jdk)) {
                fail(String.format("0x%04x: %s, JDK %s", bits, widened[bits], jdk));
            }
        }
    }

    @Test
    void narrowsEveryFloatNearARoundingBoundaryLikeTheJdk() {
        float[] values = new float[BATCH];
        MemorySegment narrowed = MemorySegment.ofArray(new short[BATCH]);
        int filled = 0;
        for (int high = 0; high < (1 << 19); high++) {
            for (int low : LOW_BITS) {
                values[filled++] = Float.intBitsToFloat((high << 13) | low);
                if (filled == BATCH) {
                    check(values, narrowed);
                    filled = 0;
                }
            }
        }
        assertThat(filled).isZero();
    }

    @Property(tries = 300)
    void narrowsRandomFloatsLikeTheJdk(@ForAll int bits) {
        float[] values = new float[BATCH];
        for (int i = 0; i < values.length; i++) {
            values[i] = Float.intBitsToFloat(bits + i * 0x0100_0001);
        }
        check(values, MemorySegment.ofArray(new short[BATCH]));
    }

    private static void check(float[] values, MemorySegment narrowed) {
        Float16Kernels.narrowBlock(values, 0, narrowed, 0, values.length);
        for (int i = 0; i < values.length; i++) {
            int jdk = Float.floatToFloat16(values[i]) & 0xFFFF;
            int actual = narrowed.getAtIndex(ValueLayout.JAVA_SHORT, i) & 0xFFFF;
            if (Float.isNaN(values[i])) {
                if (!Float.isNaN(Float.float16ToFloat((short) actual)) || (actual & 0x8000) != (jdk & 0x8000)) {
                    fail(String.format("NaN 0x%08x gave 0x%x", Float.floatToRawIntBits(values[i]), actual));
                }
            } else if (actual != jdk) {
                fail(String.format("%s (0x%08x): 0x%x, JDK 0x%04x", values[i], Float.floatToRawIntBits(values[i]),
                        actual, jdk));
            }
        }
    }
}
