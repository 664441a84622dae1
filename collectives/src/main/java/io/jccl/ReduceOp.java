package io.jccl;

import java.util.Objects;

/**
 * How a reducing collective combines the ranks' values: {@link #SUM}, {@link #PROD}, {@link #MIN},
 * {@link #MAX}, {@link #AVG}, or {@link #preMulSum(double)}.
 *
 * <p>{@code AVG} sums and then divides by the number of ranks once, at the end (integer types divide
 * with truncation, unsigned types as unsigned). {@code preMulSum(s)} multiplies each rank's own input by
 * that rank's scalar {@code s} before summing; ranks may pass different scalars.
 */
public final class ReduceOp {
    /** What the operation does, without its scalar. */
    public enum Kind {
        /** Sum. */
        SUM,
        /** Product. */
        PROD,
        /** Minimum (NaN wins for floating-point types). */
        MIN,
        /** Maximum (NaN wins for floating-point types). */
        MAX,
        /** Sum, then divide by the number of ranks. */
        AVG,
        /** Multiply each rank's input by its scalar, then sum. */
        PRE_MUL_SUM
    }

    /** Element-wise sum. */
    public static final ReduceOp SUM = new ReduceOp(Kind.SUM, 0);
    /** Element-wise product. */
    public static final ReduceOp PROD = new ReduceOp(Kind.PROD, 0);
    /** Element-wise minimum. */
    public static final ReduceOp MIN = new ReduceOp(Kind.MIN, 0);
    /** Element-wise maximum. */
    public static final ReduceOp MAX = new ReduceOp(Kind.MAX, 0);
    /** Element-wise average: the sum divided by the number of ranks. */
    public static final ReduceOp AVG = new ReduceOp(Kind.AVG, 0);

    private final Kind kind;
    private final double scalar;

    private ReduceOp(Kind kind, double scalar) {
        this.kind = kind;
        this.scalar = scalar;
    }

    /**
     * A sum in which this rank's input is first multiplied by {@code scalar} (NCCL's
     * {@code ncclRedOpCreatePreMulSum}). For integer types the scalar must be a whole number that the type can
     * hold; the check happens when the operation is used with a type.
     *
     * @param scalar this rank's multiplier
     * @return the operation
     */
    public static ReduceOp preMulSum(double scalar) {
        return new ReduceOp(Kind.PRE_MUL_SUM, scalar);
    }

    /** @return what the operation does */
    public Kind kind() {
        return kind;
    }

    /** @return the pre-multiplication scalar; 0 for operations other than {@link Kind#PRE_MUL_SUM} */
    public double scalar() {
        return scalar;
    }

    /**
     * Checks that this operation can reduce values of {@code type}: every kind works with every type, but a
     * pre-multiplication scalar must be representable in the type.
     *
     * @param type the element type
     * @return null when supported, otherwise why not
     */
    public String unsupportedReason(DataType type) {
        Objects.requireNonNull(type, "type");
        if (kind != Kind.PRE_MUL_SUM || type.isFloatingPoint()) {
            return null;
        }
        if (Double.isNaN(scalar) || Double.isInfinite(scalar) || scalar != Math.rint(scalar)) {
            return "preMulSum scalar " + scalar + " is not a whole number, so it cannot multiply " + type + " values";
        }
        // Bounds as doubles: [min, limit). The 64-bit limits 2^63 and 2^64 are exact doubles just above the
        // largest values, so they are exclusive; the smaller types' bounds are exact and inclusive (limit = max+1).
        double min;
        double limit;
        switch (type) {
            case INT8 -> { min = Byte.MIN_VALUE; limit = Byte.MAX_VALUE + 1.0; }
            case UINT8 -> { min = 0; limit = 256; }
            case INT32 -> { min = Integer.MIN_VALUE; limit = Integer.MAX_VALUE + 1.0; }
            case UINT32 -> { min = 0; limit = 0x1p32; }
            case INT64 -> { min = -0x1p63; limit = 0x1p63; }
            default -> { min = 0; limit = 0x1p64; }
        }
        if (scalar < min || scalar >= limit) {
            return "preMulSum scalar " + scalar + " is outside the range of " + type;
        }
        return null;
    }

    /**
     * Parses nccl-tests' operation names: {@code sum prod min max avg} (any case); {@code premulsum} uses
     * scalar 1.
     *
     * @param name the name
     * @return the operation
     * @throws IllegalArgumentException naming the value when it is not an operation
     */
    public static ReduceOp parse(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(java.util.Locale.ROOT);
        return switch (n) {
            case "sum" -> SUM;
            case "prod" -> PROD;
            case "min" -> MIN;
            case "max" -> MAX;
            case "avg" -> AVG;
            case "premulsum", "pre_mul_sum" -> preMulSum(1);
            default -> throw new IllegalArgumentException(
                    "unknown reduction '" + name + "'; expected one of sum prod min max avg premulsum");
        };
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReduceOp other && other.kind == kind
                && Double.doubleToLongBits(other.scalar) == Double.doubleToLongBits(scalar);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + Double.hashCode(scalar);
    }

    @Override
    public String toString() {
        return kind == Kind.PRE_MUL_SUM ? "preMulSum(" + scalar + ")" : kind.name().toLowerCase(java.util.Locale.ROOT);
    }
}
