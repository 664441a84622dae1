package io.jccl.reduce;

/**
 * The OCP 8-bit float E4M3 in its "FN" variant (1 sign, 4 exponent bits with bias 7, 3 fraction bits): no
 * infinities, NaN is {@code S.1111.111}, largest finite value 448, smallest subnormal 2<sup>-9</sup>. Held in a
 * {@code byte}. Static, allocation-free methods.
 *
 * <p>{@link #fromFloat} rounds to nearest, ties to even, and saturates like CUDA's {@code __NV_SATFINITE}: finite
 * values beyond ±448 become ±448. Infinities and NaN become NaN, since the format has no infinity.
 */
public final class Float8E4M3 {
    /** The largest finite value. */
    public static final float MAX_VALUE = 448f;
    /** Bits of {@link #MAX_VALUE}. */
    public static final byte MAX_VALUE_BITS = 0x7E;
    /** Bits of the (positive) NaN; the negative one has the sign bit set too. */
    public static final byte NAN_BITS = 0x7F;

    private static final int EXPONENT_BITS = 4;
    private static final int FRACTION_BITS = 3;

    private static final float[] DECODE = Float8Bits.decodeTable(EXPONENT_BITS, FRACTION_BITS, false);

    private Float8E4M3() {
    }

    /**
     * Widens an E4M3 value to {@code float}; exact (by table lookup).
     *
     * @param bits the E4M3 bits
     * @return the value; NaN for the NaN patterns
     */
    public static float toFloat(byte bits) {
        return DECODE[bits & 0xFF];
    }

    /**
     * Rounds a {@code float} to E4M3: nearest, ties to even, saturating finite overflow to ±448; NaN and ±Infinity
     * give NaN (with the input's sign).
     *
     * @param value the value
     * @return the E4M3 bits
     */
    public static byte fromFloat(float value) {
        // No infinities: infinity is encoded as NaN too.
        return Float8Bits.fromFloat(value, EXPONENT_BITS, FRACTION_BITS, MAX_VALUE_BITS, NAN_BITS, NAN_BITS);
    }
}
