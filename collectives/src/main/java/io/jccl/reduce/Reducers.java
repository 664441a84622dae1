package io.jccl.reduce;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** TEMPORARY scalar stand-in until the real kernels land (replaced at merge). */
public final class Reducers {
    private Reducers() {
    }

    public static Reducer of(DataType type, ReduceOp op, int nRanks) {
        String why = op.unsupportedReason(type);
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
        return new Scalar(type, op, nRanks);
    }

    private static final class Scalar implements Reducer {
        private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
        private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE_UNALIGNED;
        private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED;
        private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;
        private static final ValueLayout.OfShort S = ValueLayout.JAVA_SHORT_UNALIGNED;
        private final DataType type;
        private final ReduceOp op;
        private final int n;

        Scalar(DataType type, ReduceOp op, int n) {
            this.type = type;
            this.op = op;
            this.n = n;
        }

        @Override public DataType type() { return type; }
        @Override public ReduceOp op() { return op; }
        @Override public boolean needsPrepare() { return op.kind() == ReduceOp.Kind.PRE_MUL_SUM && op.scalar() != 1; }
        @Override public boolean needsFinish() { return op.kind() == ReduceOp.Kind.AVG && n > 1; }

        @Override
        public void combine(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dO, long count, boolean finish) {
            int sz = type.sizeBytes();
            for (long i = 0; i < count; i++) {
                double x = get(a, ao + i * sz), y = get(b, bo + i * sz);
                long xl = getL(a, ao + i * sz), yl = getL(b, bo + i * sz);
                put(d, dO + i * sz, x, y, xl, yl, finish);
            }
        }

        @Override
        public void combineLocal(MemorySegment p, long po, MemorySegment l, long lo, MemorySegment d, long dO, long count, boolean finish) {
            int sz = type.sizeBytes();
            for (long i = 0; i < count; i++) {
                double x = get(p, po + i * sz), y = pre(get(l, lo + i * sz));
                long xl = getL(p, po + i * sz), yl = preL(getL(l, lo + i * sz));
                put(d, dO + i * sz, x, y, xl, yl, finish);
            }
        }

        @Override
        public void prepare(MemorySegment s, long so, MemorySegment d, long dO, long count) {
            int sz = type.sizeBytes();
            for (long i = 0; i < count; i++) {
                if (type.isFloatingPoint()) set(d, dO + i * sz, pre(get(s, so + i * sz)));
                else setL(d, dO + i * sz, preL(getL(s, so + i * sz)));
            }
        }

        @Override
        public void finish(MemorySegment s, long so, MemorySegment d, long dO, long count) {
            int sz = type.sizeBytes();
            for (long i = 0; i < count; i++) {
                if (type.isFloatingPoint()) set(d, dO + i * sz, fin(get(s, so + i * sz)));
                else setL(d, dO + i * sz, finL(getL(s, so + i * sz)));
            }
        }

        private double pre(double v) {
            return op.kind() == ReduceOp.Kind.PRE_MUL_SUM ? round(v * op.scalar()) : v;
        }

        private long preL(long v) {
            return op.kind() == ReduceOp.Kind.PRE_MUL_SUM ? v * (long) op.scalar() : v;
        }

        private double fin(double v) {
            return op.kind() == ReduceOp.Kind.AVG && n > 1 ? round(v / n) : v;
        }

        private long finL(long v) {
            if (op.kind() != ReduceOp.Kind.AVG || n == 1) return v;
            return type.isUnsigned() ? Long.divideUnsigned(v, n) : v / n;
        }

        private double round(double v) {
            return type == DataType.FLOAT64 ? v : (double) (float) v;
        }

        private void put(MemorySegment d, long off, double x, double y, long xl, long yl, boolean finish) {
            if (type.isFloatingPoint()) {
                double r = switch (op.kind()) {
                    case PROD -> x * y;
                    case MIN -> Double.isNaN(x) || Double.isNaN(y) ? Double.NaN : Math.min(x, y);
                    case MAX -> Double.isNaN(x) || Double.isNaN(y) ? Double.NaN : Math.max(x, y);
                    default -> x + y;
                };
                r = round(r);
                set(d, off, finish ? fin(r) : r);
            } else {
                long r = switch (op.kind()) {
                    case PROD -> xl * yl;
                    case MIN -> type.isUnsigned() ? (Long.compareUnsigned(xl, yl) <= 0 ? xl : yl) : Math.min(xl, yl);
                    case MAX -> type.isUnsigned() ? (Long.compareUnsigned(xl, yl) >= 0 ? xl : yl) : Math.max(xl, yl);
                    default -> xl + yl;
                };
                setL(d, off, finish ? finL(norm(r)) : r);
            }
        }

        private long norm(long v) {
            return switch (type) {
                case INT8 -> (byte) v;
                case UINT8 -> v & 0xFF;
                case INT32 -> (int) v;
                case UINT32 -> v & 0xFFFF_FFFFL;
                default -> v;
            };
        }

        private double get(MemorySegment s, long off) {
            return switch (type) {
                case FLOAT32 -> s.get(F, off);
                case FLOAT64 -> s.get(D, off);
                case FLOAT16 -> Float.float16ToFloat(s.get(S, off));
                case BFLOAT16 -> Float.intBitsToFloat(s.get(S, off) << 16);
                default -> 0;
            };
        }

        private void set(MemorySegment s, long off, double v) {
            switch (type) {
                case FLOAT32 -> s.set(F, off, (float) v);
                case FLOAT64 -> s.set(D, off, v);
                case FLOAT16 -> s.set(S, off, Float.floatToFloat16((float) v));
                case BFLOAT16 -> s.set(S, off, (short) (Float.floatToIntBits((float) v) >>> 16));
                default -> { }
            }
        }

        private long getL(MemorySegment s, long off) {
            return switch (type) {
                case INT8 -> s.get(ValueLayout.JAVA_BYTE, off);
                case UINT8 -> s.get(ValueLayout.JAVA_BYTE, off) & 0xFF;
                case INT32 -> s.get(I, off);
                case UINT32 -> s.get(I, off) & 0xFFFF_FFFFL;
                case INT64, UINT64 -> s.get(L, off);
                default -> 0;
            };
        }

        private void setL(MemorySegment s, long off, long v) {
            switch (type) {
                case INT8, UINT8 -> s.set(ValueLayout.JAVA_BYTE, off, (byte) v);
                case INT32, UINT32 -> s.set(I, off, (int) v);
                case INT64, UINT64 -> s.set(L, off, v);
                default -> { }
            }
        }
    }
}
