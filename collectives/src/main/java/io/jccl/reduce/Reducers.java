package io.jccl.reduce;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;

import java.util.Objects;
import org.slf4j.Logger;

/**
 * Creates {@link Reducer}s: the element-wise reduction kernels for each ({@link DataType}, {@link ReduceOp},
 * rank count).
 *
 * <p>The concrete loops are chosen here, once: a reducer's methods check their arguments and run one loop
 * specialised for its type and operation, with no per-element or per-call type dispatch. All loops use the Vector
 * API with a scalar tail: directly for the 8-, 32- and 64-bit integers, {@code float} and {@code double}; the 16-
 * and 8-bit float formats widen each lane to {@code float}, compute, and round back to nearest even with lane-wise
 * conversions that match the scalar codecs bit for bit (binary16 and the 8-bit formats in stages through a
 * per-thread scratch array of 8 KiB, allocated on a thread's first call, so that every loop stays small enough for
 * C2 to compile without boxing). MIN/MAX of the 16- and 8-bit formats (which return an operand's own bits), the
 * integer AVG division (x86 has no SIMD integer division) and the small formats' fused pre-mul-sum step are scalar
 * loops.
 *
 * <p>Semantics: integer SUM/PROD wrap around; MIN/MAX compare as the type is signed or unsigned; for floating
 * types MIN/MAX return NaN when either operand is NaN and order -0.0 below +0.0, and for the 16- and 8-bit
 * formats they return the winning operand's bits unchanged. AVG sums, then divides by the rank count once
 * (truncating for signed, unsigned division for unsigned integers, in {@code float} or {@code double} for
 * floats). Pre-mul-sum multiplies the local input by the scalar (converted to the type; wrapping for integers)
 * before summing.
 */
public final class Reducers {
    private static final Logger LOG = JcclLog.logger(Subsystem.INIT, Reducers.class);

    /**
     * True when the SIMD kernels can run: the JVM resolved {@code jdk.incubator.vector} (it was started with
     * {@code --add-modules=jdk.incubator.vector}) and {@code -Djccl.reduce.scalar=true} does not turn them off.
     * Otherwise every reducer is a {@link ScalarReducer}, which gives the same results more slowly.
     */
    public static final boolean VECTOR_KERNELS = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
            && !Boolean.getBoolean("jccl.reduce.scalar");

    static {
        if (!VECTOR_KERNELS) {
            LOG.warn("JCCL uses its scalar reduction kernels: the Vector API is not enabled; start the JVM with "
                    + "--add-modules=jdk.incubator.vector for the SIMD kernels");
        }
    }

    private Reducers() {
    }

    /**
     * Returns the reducer for {@code type}, {@code op} and {@code nRanks}.
     *
     * @param type the element type
     * @param op the operation
     * @param nRanks the number of ranks whose values are reduced (AVG divides by it); at least 1
     * @return the reducer; it is immutable and safe to share between threads
     * @throws NullPointerException when {@code type} or {@code op} is null
     * @throws IllegalArgumentException when {@code nRanks < 1} or {@code op} cannot reduce {@code type}
     *         (see {@link ReduceOp#unsupportedReason})
     */
    public static Reducer of(DataType type, ReduceOp op, int nRanks) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(op, "op");
        if (nRanks < 1) {
            throw new IllegalArgumentException("nRanks must be at least 1, was " + nRanks);
        }
        String reason = op.unsupportedReason(type);
        if (reason != null) {
            throw new IllegalArgumentException(reason);
        }
        if (!VECTOR_KERNELS) {
            return new ScalarReducer(type, op, nRanks);
        }
        OpSpec spec = OpSpec.of(op, nRanks);
        Loops loops = switch (type) {
            case INT8 -> Int8Kernels.loops(spec, false);
            case UINT8 -> Int8Kernels.loops(spec, true);
            case INT32 -> Int32Kernels.loops(spec, false);
            case UINT32 -> Int32Kernels.loops(spec, true);
            case INT64 -> Int64Kernels.loops(spec, false);
            case UINT64 -> Int64Kernels.loops(spec, true);
            case FLOAT16 -> Float16Kernels.loops(spec);
            case BFLOAT16 -> BFloat16Kernels.loops(spec);
            case FLOAT32 -> Float32Kernels.loops(spec);
            case FLOAT64 -> Float64Kernels.loops(spec);
            case FLOAT8_E4M3 -> Float8E4M3Kernels.loops(spec);
            case FLOAT8_E5M2 -> Float8E5M2Kernels.loops(spec);
        };
        return new ResolvedReducer(type, op, spec, loops);
    }
}
