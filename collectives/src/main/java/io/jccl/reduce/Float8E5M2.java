package io.jccl.reduce;

/** TEMPORARY stand-in (replaced at merge). */
public final class Float8E5M2 {
    private static final float[] DECODE = new float[256];

    static {
        for (int b = 0; b < 256; b++) {
            int s = (b >> 7) & 1;
            int e = (b >> 2) & ((1 << 5) - 1);
            int m = b & ((1 << 2) - 1);
            float v;
            if ("E5M2".equals("E4M3") && e == 15 && m == 7) {
                v = Float.NaN;
            } else if ("E5M2".equals("E5M2") && e == 31) {
                v = m == 0 ? Float.POSITIVE_INFINITY : Float.NaN;
            } else if (e == 0) {
                v = (float) (m / (double) (1 << 2) * Math.pow(2, 1 - 15));
            } else {
                v = (float) ((1 + m / (double) (1 << 2)) * Math.pow(2, e - 15));
            }
            DECODE[b] = s == 1 ? -v : v;
        }
    }

    private Float8E5M2() {
    }

    public static float toFloat(byte b) {
        return DECODE[b & 0xFF];
    }

    public static byte fromFloat(float f) {
        if (Float.isNaN(f)) {
            return (byte) 0x7F;
        }
        if (Float.isInfinite(f) && "E5M2".equals("E5M2")) {
            return (byte) (f > 0 ? 0x7C : 0xFC);
        }
        int best = -1;
        double bestDiff = Double.MAX_VALUE;
        for (int b = 0; b < 256; b++) {
            float v = DECODE[b];
            if (Float.isNaN(v) || Float.isInfinite(v)) {
                continue;
            }
            double d = Math.abs((double) v - f);
            if (d < bestDiff || (d == bestDiff && (b & 1) == 0 && (best & 1) == 1)) {
                if (d == bestDiff && (Math.signum(v) != Math.signum(f) && f != 0)) {
                    continue;
                }
                best = b;
                bestDiff = d;
            }
        }
        if (f == 0) {
            return (byte) (Float.floatToRawIntBits(f) < 0 ? 0x80 : 0);
        }
        return (byte) best;
    }
}
