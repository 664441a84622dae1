package io.jccl.reduce;

/**
 * The OCP 8-bit float E5M2 (1 sign, 5 exponent bits with bias 15, 2 fraction bits; IEEE-like with infinities and
 * NaNs): largest finite value 57344, smallest subnormal 2<sup>-16</sup>. Held in a {@code byte}. Static,
 * allocation-free methods.
 *
 * <p>{@link #fromFloat} rounds to nearest, ties to even, and saturates like CUDA's {@code __NV_SATFINITE}: finite
 * values beyond ±57344 become ±57344, while ±Infinity stays ±Infinity and NaN stays NaN.
 */
public final class Float8E5M2 {
    /** The largest finite value. */
    public static final float MAX_VALUE = 57344f;
    /** Bits of {@link #MAX_VALUE}. */
    public static final byte MAX_VALUE_BITS = 0x7B;
    /** Bits of positive infinity. */
    public static final byte POSITIVE_INFINITY_BITS = 0x7C;
    /** Bits of the quiet NaN {@link #fromFloat} returns (with the input's sign bit). */
    public static final byte NAN_BITS = 0x7E;

    private static final int EXPONENT_BITS = 5;
    private static final int FRACTION_BITS = 2;

    private static final float[] DECODE = Float8Bits.decodeTable(EXPONENT_BITS, FRACTION_BITS, true);

    private Float8E5M2() {
    }

    /**
     * Widens an E5M2 value to {@code float}; exact (by table lookup).
     *
     * @param bits the E5M2 bits
     * @return the value; ±Infinity and NaN for those patterns
     */
    public static float toFloat(byte bits) {
        return DECODE[bits & 0xFF];
    }

    /**
     * Rounds a {@code float} to E5M2: nearest, ties to even, saturating finite overflow to ±57344; ±Infinity stays
     * infinite, NaN stays NaN (quiet, input's sign).
     *
     * @param value the value
     * @return the E5M2 bits
     */
    public static byte fromFloat(float value) {
        return Float8Bits.fromFloat(value, EXPONENT_BITS, FRACTION_BITS, MAX_VALUE_BITS, NAN_BITS,
                POSITIVE_INFINITY_BITS);
    }
}
