package io.jccl.reduce;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

import static io.jccl.reduce.LittleEndian.DOUBLE;
import static io.jccl.reduce.LittleEndian.FLOAT;
import static io.jccl.reduce.LittleEndian.INT;
import static io.jccl.reduce.LittleEndian.LONG;
import static io.jccl.reduce.LittleEndian.SHORT;

/**
 * Element-by-element reductions for every (type, operation) without the Vector API: what {@link Reducers} uses
 * when the JVM was started without {@code --add-modules=jdk.incubator.vector}, so that applications work either
 * way. Same results, bit for bit, as the SIMD kernels: every step rounds to the type (a pre-multiplied input is
 * rounded before it is added, a sum before it is divided); 16- and 8-bit floats compute in {@code float}; their
 * MIN/MAX return the winning operand's bits. Slower, and allocation-free. Its loops run behind the argument checks
 * of {@link ResolvedReducer}, so both paths accept and refuse the same calls.
 */
final class ScalarReducer extends ResolvedReducer {
    ScalarReducer(DataType type, ReduceOp op, int nRanks) {
        this(type, op, OpSpec.of(Objects.requireNonNull(op, "op"), nRanks));
    }

    private ScalarReducer(DataType type, ReduceOp op, OpSpec spec) {
        super(Objects.requireNonNull(type, "type"), op, spec, new Elements(type, spec).loops());
    }

    /** The loops over elements one at a time, for one (type, operation, rank count). */
    private static final class Elements {
        private final DataType type;
        private final ReduceOp.Kind kind;
        private final boolean prepare;
        private final boolean finish;
        private final int nRanks;
        private final int size;
        private final long scalarBits;      // integer types: the scalar modulo 2^64
        private final float scalarFloat;
        private final double scalarDouble;

        Elements(DataType type, OpSpec spec) {
            this.type = type;
            this.kind = spec.kind();
            this.prepare = spec.prepare();
            this.finish = spec.finish();
            this.nRanks = spec.nRanks();
            this.size = type.sizeBytes();
            this.scalarBits = type.isInteger() && kind == ReduceOp.Kind.PRE_MUL_SUM ? spec.wrappedIntegerScalar() : 0;
            this.scalarFloat = (float) spec.scalar();
            this.scalarDouble = spec.scalar();
        }

        /** @return the loops; the fused variants pass whether to finish down to one loop over the elements */
        Loops loops() {
            return new Loops((a, ao, b, bo, d, dOff, n) -> combine(a, ao, b, bo, d, dOff, n, false),
                    (a, ao, b, bo, d, dOff, n) -> combine(a, ao, b, bo, d, dOff, n, true),
                    (p, po, l, lo, d, dOff, n) -> combineLocal(p, po, l, lo, d, dOff, n, false),
                    (p, po, l, lo, d, dOff, n) -> combineLocal(p, po, l, lo, d, dOff, n, true),
                    this::prepare, this::finish);
        }

        private void combine(MemorySegment a, long aOffset, MemorySegment b, long bOffset, MemorySegment dst,
                             long dstOffset, long count, boolean finishResult) {
            for (long i = 0; i < count; i++) {
                long o = i * size;
                long r = apply(get(a, aOffset + o), get(b, bOffset + o));
                put(dst, dstOffset + o, finishResult ? fin(r) : r);
            }
        }

        private void combineLocal(MemorySegment partial, long partialOffset, MemorySegment local, long localOffset,
                                  MemorySegment dst, long dstOffset, long count, boolean finishResult) {
            for (long i = 0; i < count; i++) {
                long o = i * size;
                long r = apply(get(partial, partialOffset + o), pre(get(local, localOffset + o)));
                put(dst, dstOffset + o, finishResult ? fin(r) : r);
            }
        }

        private void prepare(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count) {
            for (long i = 0; i < count; i++) {
                put(dst, dstOffset + i * size, pre(get(src, srcOffset + i * size)));
            }
        }

        private void finish(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count) {
            for (long i = 0; i < count; i++) {
                put(dst, dstOffset + i * size, fin(get(src, srcOffset + i * size)));
            }
        }

        // Elements travel as raw bits in a long: integers sign- or zero-extended, floats as their bit pattern.

        private long get(MemorySegment s, long off) {
            return switch (type) {
                case INT8 -> s.get(ValueLayout.JAVA_BYTE, off);
                case UINT8, FLOAT8_E4M3, FLOAT8_E5M2 -> s.get(ValueLayout.JAVA_BYTE, off) & 0xFFL;
                case FLOAT16, BFLOAT16 -> s.get(SHORT, off) & 0xFFFFL;
                case INT32 -> s.get(INT, off);
                case UINT32 -> s.get(INT, off) & 0xFFFF_FFFFL;
                case FLOAT32 -> Float.floatToRawIntBits(s.get(FLOAT, off)) & 0xFFFF_FFFFL;
                case FLOAT64 -> Double.doubleToRawLongBits(s.get(DOUBLE, off));
                case INT64, UINT64 -> s.get(LONG, off);
            };
        }

        private void put(MemorySegment s, long off, long bits) {
            switch (size) {
                case 1 -> s.set(ValueLayout.JAVA_BYTE, off, (byte) bits);
                case 2 -> s.set(SHORT, off, (short) bits);
                case 4 -> s.set(INT, off, (int) bits);
                default -> s.set(LONG, off, bits);
            }
        }

        private long normalize(long v) {
            return switch (type) {
                case INT8 -> (byte) v;
                case UINT8 -> v & 0xFF;
                case INT32 -> (int) v;
                case UINT32 -> v & 0xFFFF_FFFFL;
                default -> v;
            };
        }

        private float decode(long bits) {
            return switch (type) {
                case FLOAT16 -> Float.float16ToFloat((short) bits);
                case BFLOAT16 -> BFloat16.toFloat((short) bits);
                case FLOAT8_E4M3 -> Float8E4M3.toFloat((byte) bits);
                case FLOAT8_E5M2 -> Float8E5M2.toFloat((byte) bits);
                default -> Float.intBitsToFloat((int) bits);
            };
        }

        private long encode(float v) {
            return switch (type) {
                case FLOAT16 -> Float.floatToFloat16(v) & 0xFFFFL;
                case BFLOAT16 -> BFloat16.fromFloat(v) & 0xFFFFL;
                case FLOAT8_E4M3 -> Float8E4M3.fromFloat(v) & 0xFFL;
                case FLOAT8_E5M2 -> Float8E5M2.fromFloat(v) & 0xFFL;
                default -> Float.floatToRawIntBits(v) & 0xFFFF_FFFFL;
            };
        }

        private long apply(long x, long y) {
            if (type.isInteger()) {
                return switch (kind) {
                    case PROD -> normalize(x * y);
                    case MIN -> type.isUnsigned() ? (Long.compareUnsigned(x, y) <= 0 ? x : y) : Math.min(x, y);
                    case MAX -> type.isUnsigned() ? (Long.compareUnsigned(x, y) >= 0 ? x : y) : Math.max(x, y);
                    default -> normalize(x + y);
                };
            }
            if (type == DataType.FLOAT64) {
                double a = Double.longBitsToDouble(x);
                double b = Double.longBitsToDouble(y);
                return Double.doubleToRawLongBits(switch (kind) {
                    case PROD -> a * b;
                    case MIN -> Math.min(a, b);
                    case MAX -> Math.max(a, b);
                    default -> a + b;
                });
            }
            float a = decode(x);
            float b = decode(y);
            if (kind == ReduceOp.Kind.MIN || kind == ReduceOp.Kind.MAX) {
                if (type == DataType.FLOAT32) {
                    return Float.floatToRawIntBits(kind == ReduceOp.Kind.MIN ? Math.min(a, b) : Math.max(a, b))
                            & 0xFFFF_FFFFL;
                }
                return kind == ReduceOp.Kind.MIN ? MinMaxBits.min((int) x, a, (int) y, b) & 0xFFFFFFFFL
                        : MinMaxBits.max((int) x, a, (int) y, b) & 0xFFFFFFFFL;
            }
            return encode(kind == ReduceOp.Kind.PROD ? a * b : a + b);
        }

        private long pre(long v) {
            if (!prepare) {
                return v;
            }
            if (type.isInteger()) {
                return normalize(v * scalarBits);
            }
            if (type == DataType.FLOAT64) {
                return Double.doubleToRawLongBits(Double.longBitsToDouble(v) * scalarDouble);
            }
            return encode(decode(v) * scalarFloat);
        }

        private long fin(long v) {
            if (!finish) {
                return v;
            }
            if (type.isInteger()) {
                return type.isUnsigned() ? Long.divideUnsigned(v, nRanks) : v / nRanks;
            }
            if (type == DataType.FLOAT64) {
                return Double.doubleToRawLongBits(Double.longBitsToDouble(v) / nRanks);
            }
            return encode(decode(v) / nRanks);
        }
    }
}
