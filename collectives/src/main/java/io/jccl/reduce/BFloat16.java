package io.jccl.reduce;

/** TEMPORARY stand-in (replaced at merge). */
public final class BFloat16 {
    private BFloat16() {
    }

    public static float toFloat(short h) {
        return Float.intBitsToFloat(h << 16);
    }

    public static short fromFloat(float f) {
        int bits = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) {
            return (short) ((bits >>> 16) | 0x40);
        }
        bits += 0x7FFF + ((bits >>> 16) & 1);
        return (short) (bits >>> 16);
    }
}
