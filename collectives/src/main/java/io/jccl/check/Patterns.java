package io.jccl.check;

import io.jccl.DataType;
import io.jccl.ReduceOp;

/**
 * Input values from (seed, rank, index), chosen so results are exact:
 * <ul>
 * <li>integers: any bits (sums and products wrap, which the expectation does too); small factors for PROD;</li>
 * <li>floats, SUM/AVG/PRE_MUL_SUM: small integers, so that every partial sum over the ranks is exactly
 *     representable in the type (e.g. |v| at most 2048/n for FLOAT16, 16/n for FLOAT8_E4M3);</li>
 * <li>floats, PROD: signs and powers of two (1, 2, 1/2), non-unit only on the first 8 ranks;</li>
 * <li>floats, MIN/MAX: any finite or infinite value; data-movement collectives: any bits, NaNs included.</li>
 * </ul>
 */
public final class Patterns {
    private Patterns() {
    }

    /** @return a well-mixed 64-bit hash of the three inputs (SplitMix64 finalizer) */
    public static long mix(long seed, int rank, long index) {
        long z = seed ^ (rank * 0x9E3779B97F4A7C15L) ^ (index * 0xC2B2AE3D27D4EB4FL);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Largest integer up to which every integer is exactly representable. */
    static long maxExactInteger(DataType type) {
        return switch (type) {
            case FLOAT16 -> 2048;
            case BFLOAT16 -> 256;
            case FLOAT32 -> 1L << 24;
            case FLOAT64 -> 1L << 53;
            case FLOAT8_E4M3 -> 16;
            case FLOAT8_E5M2 -> 8;
            default -> Long.MAX_VALUE;
        };
    }

    /** The pre-mul-sum scalar of a rank in checks: 1, 2 or 3. */
    public static double preMulScalar(int rank) {
        return 1 + rank % 3;
    }

    /**
     * @param type   element type
     * @param op     the reduction, or null for data-movement collectives
     * @param nRanks ranks taking part
     * @param seed   run seed
     * @param rank   whose input
     * @param index  element index
     * @return the input element's bits
     */
    public static long input(DataType type, ReduceOp.Kind op, int nRanks, long seed, int rank, long index) {
        long h = mix(seed, rank, index);
        if (op == null) {
            return Elements.normalize(type, h);
        }
        if (type.isInteger()) {
            if (op == ReduceOp.Kind.PROD) {
                long[] factors = {1, 2, 3, -1};
                return Elements.normalize(type, factors[(int) (h & 3)]);
            }
            return Elements.normalize(type, h);
        }
        return switch (op) {
            case SUM, AVG -> smallInteger(type, h, maxExactInteger(type) / nRanks);
            case PRE_MUL_SUM -> smallInteger(type, h, maxExactInteger(type) / (3L * nRanks));
            case PROD -> {
                double[] magnitudes = {1, 2, 0.5, 1};
                double m = rank < 8 ? magnitudes[(int) (h & 3)] : 1;
                yield Elements.fromDouble(type, ((h >>> 8) & 1) == 1 ? -m : m);
            }
            case MIN, MAX -> anyNonNaN(type, h);
        };
    }

    private static long smallInteger(DataType type, long h, long maxMagnitude) {
        long m = Math.min(maxMagnitude, 1 << 20);
        long v = Math.floorMod(h, 2 * m + 1) - m;
        return Elements.fromDouble(type, v);
    }

    private static long anyNonNaN(DataType type, long h) {
        if (type == DataType.FLOAT64) {
            return Double.doubleToRawLongBits(((h >>> 11) * 0x1.0p-53 - 0.5) * 1e12);
        }
        if (type == DataType.FLOAT32) {
            return Float.floatToRawIntBits((float) (((h >>> 11) * 0x1.0p-53 - 0.5) * 1e6)) & 0xFFFF_FFFFL;
        }
        long bits = Elements.normalize(type, h);
        return Double.isNaN(Elements.toDouble(type, bits)) ? 0 : bits;
    }
}
