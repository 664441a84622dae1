package io.jccl;

/**
 * Element types a collective can move and reduce.
 *
 * <p>The set and meaning follow NCCL's {@code ncclDataType_t}. Reductions on {@link #FLOAT16},
 * {@link #BFLOAT16} and the two 8-bit float formats compute in {@code float} and round the result back to
 * nearest even; integer reductions wrap around like two's-complement machine arithmetic.
 */
public enum DataType {
    /** Signed 8-bit integer. */
    INT8(1, Kind.SIGNED_INT),
    /** Unsigned 8-bit integer. */
    UINT8(1, Kind.UNSIGNED_INT),
    /** Signed 32-bit integer. */
    INT32(4, Kind.SIGNED_INT),
    /** Unsigned 32-bit integer (held in a Java {@code int}). */
    UINT32(4, Kind.UNSIGNED_INT),
    /** Signed 64-bit integer. */
    INT64(8, Kind.SIGNED_INT),
    /** Unsigned 64-bit integer (held in a Java {@code long}). */
    UINT64(8, Kind.UNSIGNED_INT),
    /** IEEE 754 binary16 (half precision), held in a Java {@code short}. */
    FLOAT16(2, Kind.FLOAT),
    /** bfloat16: the upper half of an IEEE binary32, held in a Java {@code short}. */
    BFLOAT16(2, Kind.FLOAT),
    /** IEEE 754 binary32. */
    FLOAT32(4, Kind.FLOAT),
    /** IEEE 754 binary64. */
    FLOAT64(8, Kind.FLOAT),
    /**
     * OCP 8-bit float E4M3 ("FN": no infinities, one NaN pattern per sign, largest finite value 448).
     * Results that overflow saturate to the largest finite value, as CUDA's {@code __NV_SATFINITE} does.
     */
    FLOAT8_E4M3(1, Kind.FLOAT),
    /**
     * OCP 8-bit float E5M2 (IEEE-like: infinities and NaNs, largest finite value 57344). Finite results that
     * overflow saturate to the largest finite value; infinite operands stay infinite.
     */
    FLOAT8_E5M2(1, Kind.FLOAT);

    private enum Kind { SIGNED_INT, UNSIGNED_INT, FLOAT }

    private final int sizeBytes;
    private final Kind kind;

    DataType(int sizeBytes, Kind kind) {
        this.sizeBytes = sizeBytes;
        this.kind = kind;
    }

    /** @return the size of one element in bytes */
    public int sizeBytes() {
        return sizeBytes;
    }

    /** @return true for the floating-point types (including the 16- and 8-bit formats) */
    public boolean isFloatingPoint() {
        return kind == Kind.FLOAT;
    }

    /** @return true for the unsigned integer types */
    public boolean isUnsigned() {
        return kind == Kind.UNSIGNED_INT;
    }

    /** @return true for the signed and unsigned integer types */
    public boolean isInteger() {
        return kind != Kind.FLOAT;
    }

    /**
     * Parses a type name as users write it: the enum name in any case, or nccl-tests' short names
     * ({@code int8 uint8 int32 uint32 int64 uint64 half float16 bfloat16 float float32 double float64 f8e4m3 f8e5m2}).
     *
     * @param name the name to parse
     * @return the type
     * @throws IllegalArgumentException naming the value and the accepted names when it is not a type
     */
    public static DataType parse(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(java.util.Locale.ROOT);
        return switch (n) {
            case "int8", "char" -> INT8;
            case "uint8" -> UINT8;
            case "int32", "int" -> INT32;
            case "uint32" -> UINT32;
            case "int64" -> INT64;
            case "uint64" -> UINT64;
            case "float16", "half", "fp16" -> FLOAT16;
            case "bfloat16", "bf16" -> BFLOAT16;
            case "float32", "float", "fp32" -> FLOAT32;
            case "float64", "double", "fp64" -> FLOAT64;
            case "float8_e4m3", "f8e4m3", "fp8_e4m3", "e4m3" -> FLOAT8_E4M3;
            case "float8_e5m2", "f8e5m2", "fp8_e5m2", "e5m2" -> FLOAT8_E5M2;
            default -> throw new IllegalArgumentException("unknown data type '" + name + "'; expected one of "
                    + "int8 uint8 int32 uint32 int64 uint64 float16 bfloat16 float32 float64 float8_e4m3 float8_e5m2");
        };
    }
}
