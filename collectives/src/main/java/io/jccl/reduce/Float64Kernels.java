package io.jccl.reduce;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@link io.jccl.DataType#FLOAT64} loops: Vector API over the preferred species, scalar tail.
 */
final class Float64Kernels {
    private static final VectorSpecies<Double> SPECIES = DoubleVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfDouble ELEMENT = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(LE);
    private static final int SIZE_BYTES = Double.BYTES;
    private static final long VECTOR_BYTES = SPECIES.vectorByteSize();

    /**
     * Bytes the vector loop covers: whole vectors, or none when a segment is a heap array of another type, which
     * the Vector API would serve through its slow, allocating fallback (see {@link Segments}).
     */
    private static long vectorBytes(long count, MemorySegment x, MemorySegment y, MemorySegment z) {
        return Segments.vectorizable(x, y, z, Segments.DOUBLE_ARRAY) ? SPECIES.loopBound(count) * SIZE_BYTES : 0;
    }

    private Float64Kernels() {
    }

    static Loops loops(OpSpec spec) {
        return switch (spec.kind()) {
            case PROD -> Loops.plain(Float64Kernels::prod, SIZE_BYTES);
            case MIN -> Loops.plain(Float64Kernels::min, SIZE_BYTES);
            case MAX -> Loops.plain(Float64Kernels::max, SIZE_BYTES);
            case SUM, AVG, PRE_MUL_SUM -> {
                if (spec.finish()) {
                    double n = spec.nRanks();
                    yield Loops.withFinish(Float64Kernels::sum,
                            (a, ao, b, bo, d, dOff, count) -> sumDiv(a, ao, b, bo, d, dOff, count, n),
                            (s, so, d, dOff, count) -> div(s, so, d, dOff, count, n), SIZE_BYTES);
                }
                if (spec.prepare()) {
                    double scalar = spec.scalar();
                    yield Loops.withPrepare(Float64Kernels::sum,
                            (p, po, l, lo, d, dOff, count) -> sumScaled(p, po, l, lo, d, dOff, count, scalar),
                            (s, so, d, dOff, count) -> scale(s, so, d, dOff, count, scalar), SIZE_BYTES);
                }
                yield Loops.plain(Float64Kernels::sum, SIZE_BYTES);
            }
        };
    }

    static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            DoubleVector x = DoubleVector.fromMemorySegment(SPECIES, a, aOff + o, LE);
            DoubleVector y = DoubleVector.fromMemorySegment(SPECIES, b, bOff + o, LE);
            x.add(y).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, a.get(ELEMENT, aOff + o) + b.get(ELEMENT, bOff + o));
        }
    }

    static void prod(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            DoubleVector x = DoubleVector.fromMemorySegment(SPECIES, a, aOff + o, LE);
            DoubleVector y = DoubleVector.fromMemorySegment(SPECIES, b, bOff + o, LE);
            x.mul(y).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, a.get(ELEMENT, aOff + o) * b.get(ELEMENT, bOff + o));
        }
    }

    static void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            DoubleVector x = DoubleVector.fromMemorySegment(SPECIES, a, aOff + o, LE);
            DoubleVector y = DoubleVector.fromMemorySegment(SPECIES, b, bOff + o, LE);
            x.min(y).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, Math.min(a.get(ELEMENT, aOff + o), b.get(ELEMENT, bOff + o)));
        }
    }

    static void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            DoubleVector x = DoubleVector.fromMemorySegment(SPECIES, a, aOff + o, LE);
            DoubleVector y = DoubleVector.fromMemorySegment(SPECIES, b, bOff + o, LE);
            x.max(y).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, Math.max(a.get(ELEMENT, aOff + o), b.get(ELEMENT, bOff + o)));
        }
    }

    /** {@code d = (a + b) / n}: AVG's last combine with the finish fused. */
    static void sumDiv(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff,
                       long count, double n) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            DoubleVector x = DoubleVector.fromMemorySegment(SPECIES, a, aOff + o, LE);
            DoubleVector y = DoubleVector.fromMemorySegment(SPECIES, b, bOff + o, LE);
            x.add(y).div(n).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, (a.get(ELEMENT, aOff + o) + b.get(ELEMENT, bOff + o)) / n);
        }
    }

    /** {@code d = s / n}: AVG's finish. */
    static void div(MemorySegment s, long sOff, MemorySegment d, long dOff, long count, double n) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, s, d, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            DoubleVector.fromMemorySegment(SPECIES, s, sOff + o, LE).div(n).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, s.get(ELEMENT, sOff + o) / n);
        }
    }

    /** {@code d = s * scalar}: pre-mul-sum's prepare. */
    static void scale(MemorySegment s, long sOff, MemorySegment d, long dOff, long count, double scalar) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, s, d, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            DoubleVector.fromMemorySegment(SPECIES, s, sOff + o, LE).mul(scalar).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, s.get(ELEMENT, sOff + o) * scalar);
        }
    }

    /** {@code d = p + l * scalar} (two roundings, never fused into an FMA): pre-mul-sum's combineLocal. */
    static void sumScaled(MemorySegment p, long pOff, MemorySegment l, long lOff, MemorySegment d, long dOff,
                          long count, double scalar) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, p, l, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            DoubleVector x = DoubleVector.fromMemorySegment(SPECIES, p, pOff + o, LE);
            DoubleVector y = DoubleVector.fromMemorySegment(SPECIES, l, lOff + o, LE);
            x.add(y.mul(scalar)).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, p.get(ELEMENT, pOff + o) + l.get(ELEMENT, lOff + o) * scalar);
        }
    }
}
