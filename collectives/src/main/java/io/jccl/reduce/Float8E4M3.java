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

    private static final int BIAS = 7;
    private static final int FRACTION_BITS = 3;
    /** Float bits of 448.0f. */
    private static final int FLOAT_BITS_MAX = 0x43E0_0000;
    /** Float bits of 2^-6, the smallest normal value. */
    private static final int FLOAT_BITS_MIN_NORMAL = 0x3C80_0000;
    /** 2^9: subnormals count in units of 2^-9. */
    private static final float SUBNORMAL_SCALE = 512f;
    private static final int SHIFT = 23 - FRACTION_BITS;
    private static final int REBIAS = (127 - BIAS) << FRACTION_BITS;

    private static final float[] DECODE = new float[256];

    static {
        for (int b = 0; b < 256; b++) {
            int exponent = (b >>> FRACTION_BITS) & 0xF;
            int fraction = b & 0x7;
            float magnitude;
            if (exponent == 0xF && fraction == 0x7) {
                magnitude = Float.NaN;
            } else if (exponent == 0) {
                magnitude = fraction / SUBNORMAL_SCALE;
            } else {
                magnitude = Math.scalb(1f + fraction / 8f, exponent - BIAS);
            }
            DECODE[b] = (b & 0x80) != 0 ? -magnitude : magnitude;
        }
    }

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
        int bits = Float.floatToRawIntBits(value);
        int sign = (bits >>> 24) & 0x80;
        int magnitude = bits & 0x7FFF_FFFF;
        if (magnitude >= 0x7F80_0000) {
            return (byte) (sign | NAN_BITS);
        }
        if (magnitude >= FLOAT_BITS_MAX) {
            return (byte) (sign | MAX_VALUE_BITS);
        }
        if (magnitude < FLOAT_BITS_MIN_NORMAL) {
            // Subnormal (or zero): the count of 2^-9 units, rounded half-even; 8 units is the smallest normal,
            // whose encoding is 0x08 as well. Scaling by a power of two is exact.
            return (byte) (sign | (int) Math.rint(Float.intBitsToFloat(magnitude) * SUBNORMAL_SCALE));
        }
        int rounded = magnitude + ((1 << (SHIFT - 1)) - 1) + ((magnitude >>> SHIFT) & 1);
        return (byte) (sign | ((rounded >>> SHIFT) - REBIAS));
    }
}
