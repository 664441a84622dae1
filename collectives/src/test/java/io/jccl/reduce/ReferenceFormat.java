package io.jccl.reduce;

import java.math.BigDecimal;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A small binary float format described only by its field widths, with reference conversions written from the
 * definitions and independent of the production codecs: decoding by the textbook formula, encoding by searching
 * the representable values for the nearest one (exact {@link BigDecimal} distances, ties to the even encoding).
 */
final class ReferenceFormat {
    /** IEEE binary16. */
    static final ReferenceFormat FLOAT16 = new ReferenceFormat("FLOAT16", 5, 10, true, false);
    /** bfloat16. */
    static final ReferenceFormat BFLOAT16 = new ReferenceFormat("BFLOAT16", 8, 7, true, false);
    /** OCP E5M2: IEEE-like specials, finite overflow saturates. */
    static final ReferenceFormat E5M2 = new ReferenceFormat("E5M2", 5, 2, true, true);
    /** OCP E4M3 "FN": only S.1111.111 is special (NaN), finite overflow saturates, infinity becomes NaN. */
    static final ReferenceFormat E4M3 = new ReferenceFormat("E4M3", 4, 3, false, true);

    final String name;
    final int exponentBits;
    final int fractionBits;
    final int totalBits;
    final int bias;
    /** True: exponent all ones encodes infinity (fraction 0) and NaN; false: only all ones everywhere is NaN. */
    final boolean ieeeSpecials;
    /** True: finite values beyond the largest finite one become it; false: IEEE rounding to infinity. */
    final boolean saturating;
    final int maxFiniteCode;
    final int signBit;
    private final double[] valueOfCode;

    private ReferenceFormat(String name, int exponentBits, int fractionBits, boolean ieeeSpecials,
                            boolean saturating) {
        this.name = name;
        this.exponentBits = exponentBits;
        this.fractionBits = fractionBits;
        this.totalBits = 1 + exponentBits + fractionBits;
        this.bias = (1 << (exponentBits - 1)) - 1;
        this.ieeeSpecials = ieeeSpecials;
        this.saturating = saturating;
        int exponentOnes = (1 << exponentBits) - 1;
        int fractionOnes = (1 << fractionBits) - 1;
        this.maxFiniteCode = ieeeSpecials ? ((exponentOnes - 1) << fractionBits) | fractionOnes
                : (exponentOnes << fractionBits) | (fractionOnes - 1);
        this.signBit = 1 << (totalBits - 1);
        this.valueOfCode = new double[maxFiniteCode + 1];
        for (int code = 0; code <= maxFiniteCode; code++) {
            valueOfCode[code] = decode(code);
        }
    }

    /** @return the number of bit patterns */
    int patterns() {
        return 1 << totalBits;
    }

    /** @return the largest finite value */
    double maxFinite() {
        return valueOfCode[maxFiniteCode];
    }

    /**
     * Decodes by the definition: {@code (-1)^s × 2^(e - bias) × 1.f}, or {@code 2^(1 - bias) × 0.f} when e = 0.
     *
     * @param bits the pattern (low {@link #totalBits} bits used)
     * @return the value (exact in a double)
     */
    double decode(int bits) {
        int exponentOnes = (1 << exponentBits) - 1;
        int fractionOnes = (1 << fractionBits) - 1;
        boolean negative = (bits & signBit) != 0;
        int exponent = (bits >>> fractionBits) & exponentOnes;
        int fraction = bits & fractionOnes;
        double magnitude;
        if (ieeeSpecials && exponent == exponentOnes) {
            magnitude = fraction == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
        } else if (!ieeeSpecials && exponent == exponentOnes && fraction == fractionOnes) {
            magnitude = Double.NaN;
        } else if (exponent == 0) {
            magnitude = fraction * Math.pow(2, 1 - bias - fractionBits);
        } else {
            magnitude = ((1 << fractionBits) + fraction) * Math.pow(2, exponent - bias - fractionBits);
        }
        return negative ? -magnitude : magnitude;
    }

    /**
     * @param bits a pattern
     * @return true when it encodes NaN
     */
    boolean isNaN(int bits) {
        return Double.isNaN(decode(bits));
    }

    /**
     * Rounds to the nearest representable value, ties to the even encoding; overflow, infinity and NaN as the
     * format says. NaN inputs give some NaN pattern (check with {@link #isNaN}).
     *
     * @param x the value
     * @return the pattern
     */
    int round(double x) {
        int sign = Double.doubleToRawLongBits(x) < 0 ? signBit : 0;
        int nan = nanCode();
        if (Double.isNaN(x)) {
            return sign | nan;
        }
        double magnitude = Math.abs(x);
        if (Double.isInfinite(magnitude)) {
            return sign | (ieeeSpecials ? infinityCode() : nan);
        }
        if (magnitude > maxFinite()) {
            if (saturating) {
                return sign | maxFiniteCode;
            }
            // IEEE: round as if the exponent range were unbounded; the next value up is 2^(emax + 1).
            double ulp = valueOfCode[maxFiniteCode] - valueOfCode[maxFiniteCode - 1];
            BigDecimal next = new BigDecimal(maxFinite()).add(new BigDecimal(ulp));
            int nearest = nearer(magnitude, maxFiniteCode, maxFinite(), infinityCode(), next);
            return sign | nearest;
        }
        int low = searchFloor(magnitude);
        if (valueOfCode[low] == magnitude) {
            return sign | low;
        }
        int high = low + 1;
        return sign | nearer(magnitude, low, valueOfCode[low], high, new BigDecimal(valueOfCode[high]));
    }

    private int nearer(double x, int lowCode, double lowValue, int highCode, BigDecimal highValue) {
        BigDecimal exact = new BigDecimal(x);
        int cmp = exact.subtract(new BigDecimal(lowValue)).compareTo(highValue.subtract(exact));
        if (cmp != 0) {
            return cmp < 0 ? lowCode : highCode;
        }
        return (lowCode & 1) == 0 ? lowCode : highCode;
    }

    /** The largest code whose value is at most {@code magnitude}: exhaustive scan for 8-bit formats. */
    private int searchFloor(double magnitude) {
        if (totalBits <= 8) {
            int best = 0;
            for (int code = 0; code <= maxFiniteCode; code++) {
                if (valueOfCode[code] <= magnitude) {
                    best = code;
                }
            }
            return best;
        }
        int lo = 0;
        int hi = maxFiniteCode;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (valueOfCode[mid] <= magnitude) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private int infinityCode() {
        return ((1 << exponentBits) - 1) << fractionBits;
    }

    private int nanCode() {
        return (1 << (totalBits - 1)) - 1;
    }

    /**
     * Asserts that a decoding of {@code bits} (by a codec, or by the JDK) is this reference's value to the bit, as a
     * double (so the sign of zero counts); for a NaN pattern only that it is NaN, since payloads are the codec's.
     *
     * @param bits    the pattern
     * @param decoded what the implementation under test decoded it to
     */
    void assertDecodes(int bits, float decoded) {
        double expected = decode(bits);
        if (Double.isNaN(expected)) {
            assertThat(decoded).as("%s 0x%04x is NaN", name, bits).isNaN();
        } else {
            assertThat(Double.doubleToRawLongBits(decoded)).as("%s 0x%04x = %s", name, bits, expected)
                    .isEqualTo(Double.doubleToRawLongBits(expected));
        }
    }

    /**
     * Asserts that an encoding of {@code value} is the pattern {@link #round} gives; where that is NaN, that it is
     * some NaN with the same sign (the formats keep the input's sign, and payloads are the codec's).
     *
     * @param value   the float encoded
     * @param encoded the pattern the implementation under test gave (low {@link #totalBits} bits)
     */
    void assertEncodes(float value, int encoded) {
        int expected = round(value);
        if (isNaN(expected)) {
            assertThat(isNaN(encoded)).as("%s %s gives NaN", name, value).isTrue();
            assertThat(encoded & signBit).as("%s %s gives NaN of its sign", name, value)
                    .isEqualTo(expected & signBit);
        } else {
            assertThat(encoded).as("%s %s (0x%08x)", name, value, Float.floatToRawIntBits(value)).isEqualTo(expected);
        }
    }

    /** @return the value of a non-negative finite code */
    double valueOfCode(int code) {
        return valueOfCode[code];
    }

    @Override
    public String toString() {
        return name;
    }
}
