package io.jccl.reduce;

/**
 * MIN/MAX for the 16- and 8-bit float formats on decoded values, answering with the winning operand's own bits
 * so no re-rounding can change it: NaN wins (the NaN operand's bits), otherwise the numerically smaller (larger)
 * operand, with -0.0 below +0.0. These formats encode every other value uniquely, so equal non-zero values have
 * equal bits.
 */
final class MinMaxBits {
    private MinMaxBits() {
    }

    /**
     * @param x first operand's bits
     * @param fx first operand's value
     * @param y second operand's bits
     * @param fy second operand's value
     * @return the bits of the minimum
     */
    static int min(int x, float fx, int y, float fy) {
        if (fx != fx || fx < fy) {
            return x;
        }
        if (fy != fy || fy < fx) {
            return y;
        }
        return Float.floatToRawIntBits(fx) < 0 ? x : y;
    }

    /**
     * @param x first operand's bits
     * @param fx first operand's value
     * @param y second operand's bits
     * @param fy second operand's value
     * @return the bits of the maximum
     */
    static int max(int x, float fx, int y, float fy) {
        if (fx != fx || fx > fy) {
            return x;
        }
        if (fy != fy || fy > fx) {
            return y;
        }
        return Float.floatToRawIntBits(fx) < 0 ? y : x;
    }
}
