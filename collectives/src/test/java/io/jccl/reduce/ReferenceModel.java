package io.jccl.reduce;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * The reduction semantics written out one element at a time, independently of the kernels: integers through
 * {@link BigInteger} (then wrapped to the width), {@code double} through exact {@link BigDecimal} arithmetic,
 * {@code float} through {@code double} arithmetic (which rounds the exact result once more, harmlessly: a double
 * has more than 2 × 24 + 2 bits), and the 16- and 8-bit formats through {@code double} arithmetic on decoded
 * values, rounded to {@code float} as the specification computes in float, then to the format by the brute-force
 * {@link ReferenceFormat#round}.
 */
final class ReferenceModel {
    private static final MathContext QUOTIENT = new MathContext(80, RoundingMode.HALF_EVEN);

    private final DataType type;
    private final ReduceOp.Kind kind;
    private final double scalar;
    private final int nRanks;
    private final boolean prepares;
    private final boolean finishes;
    private final ReferenceFormat format;

    ReferenceModel(DataType type, ReduceOp op, int nRanks) {
        this.type = type;
        this.kind = op.kind();
        this.scalar = op.scalar();
        this.nRanks = nRanks;
        this.prepares = kind == ReduceOp.Kind.PRE_MUL_SUM && scalar != 1;
        this.finishes = kind == ReduceOp.Kind.AVG && nRanks > 1;
        this.format = switch (type) {
            case FLOAT16 -> ReferenceFormat.FLOAT16;
            case BFLOAT16 -> ReferenceFormat.BFLOAT16;
            case FLOAT8_E4M3 -> ReferenceFormat.E4M3;
            case FLOAT8_E5M2 -> ReferenceFormat.E5M2;
            default -> null;
        };
    }

    /** @return {@code a ⊕ b} */
    long combine(long a, long b) {
        return switch (kind) {
            case SUM, AVG, PRE_MUL_SUM -> sum(a, b);
            case PROD -> product(a, b);
            case MIN -> minOrMax(a, b, true);
            case MAX -> minOrMax(a, b, false);
        };
    }

    /** @return {@code prepare(x)} */
    long prepare(long x) {
        return prepares ? scale(x) : x;
    }

    /** @return {@code finish(x)} */
    long finish(long x) {
        return finishes ? divide(x) : x;
    }

    /**
     * @param expected the model's bits
     * @param actual the kernel's bits
     * @return true when they agree: equal bits, or for floating types (except the bit-exact small-float MIN/MAX)
     *         both NaN
     */
    boolean agrees(long expected, long actual) {
        if (expected == actual) {
            return true;
        }
        if (!type.isFloatingPoint() || (format != null && (kind == ReduceOp.Kind.MIN || kind == ReduceOp.Kind.MAX))) {
            return false;
        }
        return isNaN(expected) && isNaN(actual);
    }

    private boolean isNaN(long bits) {
        return switch (type) {
            case FLOAT32 -> Float.isNaN(Float.intBitsToFloat((int) bits));
            case FLOAT64 -> Double.isNaN(Double.longBitsToDouble(bits));
            default -> format.isNaN((int) bits);
        };
    }

    // ---- integers

    private BigInteger big(long bits) {
        int width = 8 * type.sizeBytes();
        if (type.isUnsigned()) {
            return new BigInteger(Long.toUnsignedString(bits & Elements.mask(type)));
        }
        return BigInteger.valueOf((bits << (64 - width)) >> (64 - width));
    }

    private long wrap(BigInteger value) {
        return value.longValue() & Elements.mask(type);
    }

    // ---- the operations

    private long sum(long a, long b) {
        return switch (type) {
            case FLOAT32 -> floatBits((float) ((double) f32(a) + (double) f32(b)));
            case FLOAT64 -> {
                double x = f64(a);
                double y = f64(b);
                double ieee = x + y;
                yield Double.doubleToRawLongBits(Double.isFinite(x) && Double.isFinite(y)
                        ? exact(new BigDecimal(x).add(new BigDecimal(y)), ieee) : ieee);
            }
            case FLOAT16, BFLOAT16, FLOAT8_E4M3, FLOAT8_E5M2 ->
                    format.round((float) (format.decode((int) a) + format.decode((int) b)));
            default -> wrap(big(a).add(big(b)));
        };
    }

    private long product(long a, long b) {
        return switch (type) {
            case FLOAT32 -> floatBits((float) ((double) f32(a) * (double) f32(b)));
            case FLOAT64 -> {
                double x = f64(a);
                double y = f64(b);
                double ieee = x * y;
                yield Double.doubleToRawLongBits(Double.isFinite(x) && Double.isFinite(y)
                        ? exact(new BigDecimal(x).multiply(new BigDecimal(y)), ieee) : ieee);
            }
            case FLOAT16, BFLOAT16, FLOAT8_E4M3, FLOAT8_E5M2 ->
                    format.round((float) (format.decode((int) a) * format.decode((int) b)));
            default -> wrap(big(a).multiply(big(b)));
        };
    }

    private long minOrMax(long a, long b, boolean min) {
        if (type.isInteger()) {
            int cmp = big(a).compareTo(big(b));
            return (min ? cmp <= 0 : cmp >= 0) ? a : b;
        }
        double x = value(a);
        double y = value(b);
        if (Double.isNaN(x) || Double.isNaN(y)) {
            // Some NaN; for the small formats the NaN operand's own bits.
            return Double.isNaN(x) ? a : b;
        }
        int cmp = Double.compare(x, y); // orders -0.0 below 0.0
        return (min ? cmp <= 0 : cmp >= 0) ? a : b;
    }

    private long divide(long x) {
        return switch (type) {
            case FLOAT32 -> floatBits((float) ((double) f32(x) / nRanks));
            case FLOAT64 -> {
                double v = f64(x);
                double ieee = v / nRanks;
                yield Double.doubleToRawLongBits(Double.isFinite(v)
                        ? exact(quotient(new BigDecimal(v), nRanks), ieee) : ieee);
            }
            case FLOAT16, BFLOAT16, FLOAT8_E4M3, FLOAT8_E5M2 ->
                    format.round((float) (format.decode((int) x) / nRanks));
            default -> wrap(big(x).divide(BigInteger.valueOf(nRanks)));
        };
    }

    private long scale(long x) {
        return switch (type) {
            case FLOAT32 -> floatBits((float) ((double) f32(x) * (double) (float) scalar));
            case FLOAT64 -> {
                double v = f64(x);
                double ieee = v * scalar;
                yield Double.doubleToRawLongBits(Double.isFinite(v) && Double.isFinite(scalar)
                        ? exact(new BigDecimal(v).multiply(new BigDecimal(scalar)), ieee) : ieee);
            }
            case FLOAT16, BFLOAT16, FLOAT8_E4M3, FLOAT8_E5M2 ->
                    format.round((float) (format.decode((int) x) * (double) (float) scalar));
            default -> wrap(big(x).multiply(new BigDecimal(scalar).toBigIntegerExact()));
        };
    }

    /**
     * {@code x / n}: exact when the decimal expansion terminates (so exact binary ties stay ties), else to 80
     * digits, which cannot move a quotient that is not a tie onto one (it is at least about 2^-56 / n away,
     * relatively).
     */
    private static BigDecimal quotient(BigDecimal x, int n) {
        try {
            return x.divide(BigDecimal.valueOf(n));
        } catch (ArithmeticException nonTerminating) {
            return x.divide(BigDecimal.valueOf(n), QUOTIENT);
        }
    }

    /**
     * The correctly rounded double of an exact value. An exact zero takes its sign from the IEEE result (which is
     * then exactly zero too); a non-zero value that underflows to zero keeps its own sign.
     */
    private static double exact(BigDecimal value, double ieee) {
        if (value.signum() == 0) {
            return ieee;
        }
        double rounded = value.doubleValue();
        if (rounded == 0) {
            return value.signum() < 0 ? -0.0 : 0.0;
        }
        return rounded;
    }

    private double value(long bits) {
        return switch (type) {
            case FLOAT32 -> f32(bits);
            case FLOAT64 -> f64(bits);
            default -> format.decode((int) bits);
        };
    }

    private static float f32(long bits) {
        return Float.intBitsToFloat((int) bits);
    }

    private static double f64(long bits) {
        return Double.longBitsToDouble(bits);
    }

    private static long floatBits(float value) {
        return Float.floatToRawIntBits(value) & 0xFFFF_FFFFL;
    }
}
