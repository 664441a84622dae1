package io.jccl.reduce;

/**
 * What {@link Float8E4M3} and {@link Float8E5M2} compute alike, given their field widths: the table of every bit
 * pattern's value, and the encoding of floats. Their special values differ (E4M3 "FN" has no infinities and
 * one NaN pattern per sign, E5M2 is IEEE-like), and each class passes the patterns it encodes them as. The classes
 * pass constants, so once inlined the encoding is the same code as a copy with the format's numbers written in.
 */
final class Float8Bits {
    private Float8Bits() {
    }

    /**
     * @param exponentBits exponent field width; the bias is {@code 2^(exponentBits - 1) - 1}
     * @param fractionBits fraction field width
     * @param infinities true for IEEE-like special values (exponent all ones: infinity for fraction 0, else NaN);
     *                   false for the "FN" variant, whose only special value is NaN (exponent and fraction all ones)
     * @return the value of each of the 256 patterns, by unsigned pattern
     */
    static float[] decodeTable(int exponentBits, int fractionBits, boolean infinities) {
        int bias = bias(exponentBits);
        int exponentMask = (1 << exponentBits) - 1;
        int fractionMask = (1 << fractionBits) - 1;
        float subnormalScale = 1 << (bias - 1 + fractionBits);
        float[] table = new float[256];
        for (int b = 0; b < 256; b++) {
            int exponent = (b >>> fractionBits) & exponentMask;
            int fraction = b & fractionMask;
            float magnitude;
            if (exponent == exponentMask && (infinities || fraction == fractionMask)) {
                magnitude = infinities && fraction == 0 ? Float.POSITIVE_INFINITY : Float.NaN;
            } else if (exponent == 0) {
                magnitude = fraction / subnormalScale;
            } else {
                magnitude = Math.scalb(1f + fraction / (float) (1 << fractionBits), exponent - bias);
            }
            table[b] = (b & 0x80) != 0 ? -magnitude : magnitude;
        }
        return table;
    }

    /**
     * Encodes a float: NaN gives {@code nanBits}, ±Infinity {@code infinityBits} (each with the input's sign bit), a
     * finite value is rounded by {@link #roundFinite}.
     *
     * @param value the value
     * @param exponentBits exponent field width
     * @param fractionBits fraction field width
     * @param maxValueBits bits of the largest finite value
     * @param nanBits bits of the positive NaN to return for NaN
     * @param infinityBits bits to return for positive infinity (the NaN's for a format without infinities)
     * @return the 8-bit pattern
     */
    static byte fromFloat(float value, int exponentBits, int fractionBits, byte maxValueBits, byte nanBits,
            byte infinityBits) {
        int bits = Float.floatToRawIntBits(value);
        int sign = (bits >>> 24) & 0x80;
        int magnitude = bits & 0x7FFF_FFFF;
        if (magnitude > 0x7F80_0000) {
            return (byte) (sign | nanBits);
        }
        if (magnitude == 0x7F80_0000) {
            return (byte) (sign | infinityBits);
        }
        return roundFinite(sign, magnitude, exponentBits, fractionBits, maxValueBits);
    }

    /**
     * Rounds a finite float to nearest, ties to even, saturating at the largest finite value.
     *
     * @param sign the result's sign bit: {@code 0x80} or 0
     * @param magnitude the float's bits without the sign, below infinity's
     * @param exponentBits exponent field width
     * @param fractionBits fraction field width
     * @param maxValueBits bits of the largest finite value
     * @return the 8-bit pattern
     */
    private static byte roundFinite(int sign, int magnitude, int exponentBits, int fractionBits, byte maxValueBits) {
        int bias = bias(exponentBits);
        int shift = 23 - fractionBits;
        int rebias = (127 - bias) << fractionBits;
        if (magnitude >= (maxValueBits + rebias) << shift) {
            return (byte) (sign | maxValueBits);
        }
        if (magnitude < (rebias + (1 << fractionBits)) << shift) {
            // Subnormal (or zero): the count of smallest-subnormal units (2^-(bias - 1 + fractionBits)), rounded
            // half-even; 2^fractionBits units is the smallest normal, whose encoding is that count as well. Scaling
            // by a power of two is exact.
            float units = Float.intBitsToFloat(magnitude) * (1 << (bias - 1 + fractionBits));
            return (byte) (sign | (int) Math.rint(units));
        }
        int rounded = magnitude + ((1 << (shift - 1)) - 1) + ((magnitude >>> shift) & 1);
        return (byte) (sign | ((rounded >>> shift) - rebias));
    }

    private static int bias(int exponentBits) {
        return (1 << (exponentBits - 1)) - 1;
    }
}
