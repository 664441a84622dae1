package io.jccl.reduce;

/**
 * The bfloat16 format: the upper 16 bits of an IEEE 754 binary32 (1 sign, 8 exponent, 7 fraction bits), held
 * in a {@code short}. Conversions are exact from bfloat16 and round to nearest, ties to even, into it. Static,
 * allocation-free methods.
 */
public final class BFloat16 {
    /** Bits of the largest finite bfloat16 value, about 3.39e38. */
    public static final short MAX_VALUE_BITS = 0x7F7F;

    private BFloat16() {
    }

    /**
     * Widens a bfloat16 value to {@code float}; exact (NaNs stay NaN, keeping sign and payload).
     *
     * @param bits the bfloat16 bits
     * @return the same value as a float
     */
    public static float toFloat(short bits) {
        return Float.intBitsToFloat(bits << 16);
    }

    /**
     * Rounds a {@code float} to the nearest bfloat16 value, ties to even. Values beyond the largest finite
     * bfloat16 round to infinity as IEEE rounding does; NaN stays NaN (made quiet, sign kept); the sign of zero is
     * kept.
     *
     * @param value the value
     * @return the bfloat16 bits
     */
    public static short fromFloat(float value) {
        int bits = Float.floatToRawIntBits(value);
        if ((bits & 0x7FFF_FFFF) > 0x7F80_0000) {
            return (short) ((bits >>> 16) | 0x0040);
        }
        // Adding 0x7FFF plus the lowest kept bit rounds the magnitude to nearest even; a carry moves into the
        // exponent (and up to infinity) exactly as rounding should. The sign bit is never reached.
        return (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }
}
