package io.jccl.reduce;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks the test reference itself against the JDK's binary16 conversions, an implementation it shares nothing with:
 * if the reference agrees there, its decoding and nearest-even search can be trusted for the other formats.
 */
class ReferenceFormatTest {
    private static final ReferenceFormat REF = ReferenceFormat.FLOAT16;

    @Test
    void decodesLikeTheJdkForEveryBinary16Pattern() {
        for (int bits = 0; bits < 0x10000; bits++) {
            REF.assertDecodes(bits, Float.float16ToFloat((short) bits));
        }
    }

    @Property(tries = 3000)
    void roundsLikeTheJdk(@ForAll int bits) {
        float value = Float.intBitsToFloat(bits);
        int jdk = Float.floatToFloat16(value) & 0xFFFF;
        int ref = REF.round(value);
        if (Float.isNaN(value)) {
            assertThat(REF.isNaN(jdk) && REF.isNaN(ref)).isTrue();
        } else {
            assertThat(ref).as("%s", value).isEqualTo(jdk);
        }
    }

    @Property(tries = 3000)
    void roundsLikeTheJdkNearBinary16Values(@ForAll short half, @ForAll int delta) {
        float value = Float.intBitsToFloat(Float.floatToRawIntBits(Float.float16ToFloat(half)) + (delta % 0x4000));
        if (!Float.isNaN(value)) {
            assertThat(REF.round(value)).as("%s", value).isEqualTo(Float.floatToFloat16(value) & 0xFFFF);
        }
    }
}
