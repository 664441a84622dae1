package io.jccl.reduce;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@link io.jccl.DataType#INT64} and {@link io.jccl.DataType#UINT64} loops: Vector API over the preferred species
 * with a scalar tail. Sums and products wrap around and have the same bits for both signednesses; MIN/MAX compare
 * signed or unsigned ({@code UMIN}/{@code UMAX}). AVG's division stays scalar: x86 has no SIMD integer division.
 */
final class Int64Kernels {
    private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfLong ELEMENT = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(LE);
    private static final int SIZE_BYTES = 8;
    private static final long VECTOR_BYTES = SPECIES.vectorByteSize();

    /**
     * Bytes the vector loop covers: whole vectors, or none when a segment is a heap array of another type, which
     * the Vector API would serve through its slow, allocating fallback (see {@link Segments}).
     */
    private static long vectorBytes(long count, MemorySegment x, MemorySegment y, MemorySegment z) {
        return Segments.vectorizable(x, y, z, Segments.LONG_ARRAY) ? SPECIES.loopBound(count) * SIZE_BYTES : 0;
    }

    private Int64Kernels() {
    }

    static Loops loops(OpSpec spec, boolean unsigned) {
        return switch (spec.kind()) {
            case PROD -> Loops.plain(Int64Kernels::prod, SIZE_BYTES);
            case MIN -> Loops.plain(unsigned ? Int64Kernels::minUnsigned : Int64Kernels::min, SIZE_BYTES);
            case MAX -> Loops.plain(unsigned ? Int64Kernels::maxUnsigned : Int64Kernels::max, SIZE_BYTES);
            case SUM, AVG, PRE_MUL_SUM -> {
                if (spec.finish()) {
                    long n = spec.nRanks();
                    yield unsigned
                            ? Loops.withFinish(Int64Kernels::sum,
                                    (a, ao, b, bo, d, dOff, count) -> sumDivUnsigned(a, ao, b, bo, d, dOff, count, n),
                                    (s, so, d, dOff, count) -> divUnsigned(s, so, d, dOff, count, n), SIZE_BYTES)
                            : Loops.withFinish(Int64Kernels::sum,
                                    (a, ao, b, bo, d, dOff, count) -> sumDiv(a, ao, b, bo, d, dOff, count, n),
                                    (s, so, d, dOff, count) -> div(s, so, d, dOff, count, n), SIZE_BYTES);
                }
                if (spec.prepare()) {
                    long scalar = spec.wrappedIntegerScalar();
                    yield Loops.withPrepare(Int64Kernels::sum,
                            (p, po, l, lo, d, dOff, count) -> sumScaled(p, po, l, lo, d, dOff, count, scalar),
                            (s, so, d, dOff, count) -> scale(s, so, d, dOff, count, scalar), SIZE_BYTES);
                }
                yield Loops.plain(Int64Kernels::sum, SIZE_BYTES);
            }
        };
    }

    static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            LongVector x = LongVector.fromMemorySegment(SPECIES, a, aOff + o, LE);
            LongVector y = LongVector.fromMemorySegment(SPECIES, b, bOff + o, LE);
            x.add(y).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, (a.get(ELEMENT, aOff + o) + b.get(ELEMENT, bOff + o)));
        }
    }

    static void prod(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            LongVector x = LongVector.fromMemorySegment(SPECIES, a, aOff + o, LE);
            LongVector y = LongVector.fromMemorySegment(SPECIES, b, bOff + o, LE);
            x.mul(y).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, (a.get(ELEMENT, aOff + o) * b.get(ELEMENT, bOff + o)));
        }
    }

    static void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            LongVector x = LongVector.fromMemorySegment(SPECIES, a, aOff + o, LE);
            LongVector y = LongVector.fromMemorySegment(SPECIES, b, bOff + o, LE);
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
            LongVector x = LongVector.fromMemorySegment(SPECIES, a, aOff + o, LE);
            LongVector y = LongVector.fromMemorySegment(SPECIES, b, bOff + o, LE);
            x.max(y).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, Math.max(a.get(ELEMENT, aOff + o), b.get(ELEMENT, bOff + o)));
        }
    }

    static void minUnsigned(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff,
                            long count) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            LongVector x = LongVector.fromMemorySegment(SPECIES, a, aOff + o, LE);
            LongVector y = LongVector.fromMemorySegment(SPECIES, b, bOff + o, LE);
            x.lanewise(VectorOperators.UMIN, y).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            long x = a.get(ELEMENT, aOff + o);
            long y = b.get(ELEMENT, bOff + o);
            d.set(ELEMENT, dOff + o, Long.compareUnsigned(x, y) <= 0 ? x : y);
        }
    }

    static void maxUnsigned(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff,
                            long count) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            LongVector x = LongVector.fromMemorySegment(SPECIES, a, aOff + o, LE);
            LongVector y = LongVector.fromMemorySegment(SPECIES, b, bOff + o, LE);
            x.lanewise(VectorOperators.UMAX, y).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            long x = a.get(ELEMENT, aOff + o);
            long y = b.get(ELEMENT, bOff + o);
            d.set(ELEMENT, dOff + o, Long.compareUnsigned(x, y) >= 0 ? x : y);
        }
    }

    /** {@code d = s * scalar}, wrapping: pre-mul-sum's prepare. */
    static void scale(MemorySegment s, long sOff, MemorySegment d, long dOff, long count, long scalar) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, s, d, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            LongVector.fromMemorySegment(SPECIES, s, sOff + o, LE).mul(scalar).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, (s.get(ELEMENT, sOff + o) * scalar));
        }
    }

    /** {@code d = p + l * scalar}, wrapping: pre-mul-sum's combineLocal. */
    static void sumScaled(MemorySegment p, long pOff, MemorySegment l, long lOff, MemorySegment d, long dOff,
                          long count, long scalar) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, p, l, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            LongVector x = LongVector.fromMemorySegment(SPECIES, p, pOff + o, LE);
            LongVector y = LongVector.fromMemorySegment(SPECIES, l, lOff + o, LE);
            x.add(y.mul(scalar)).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, (p.get(ELEMENT, pOff + o) + l.get(ELEMENT, lOff + o) * scalar));
        }
    }

    /** {@code d = (a + b) / n}, truncating: AVG's last combine with the finish fused. */
    static void sumDiv(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff,
                       long count, long n) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
            long x = (a.get(ELEMENT, aOff + o) + b.get(ELEMENT, bOff + o));
            d.set(ELEMENT, dOff + o, x / n);
        }
    }

    /** {@code d = (a + b) / n}, unsigned: AVG's last combine with the finish fused. */
    static void sumDivUnsigned(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff,
                               long count, long n) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
            long x = (a.get(ELEMENT, aOff + o) + b.get(ELEMENT, bOff + o));
            d.set(ELEMENT, dOff + o, Long.divideUnsigned(x, n));
        }
    }

    /** {@code d = s / n}, truncating: AVG's finish. */
    static void div(MemorySegment s, long sOff, MemorySegment d, long dOff, long count, long n) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
            long x = s.get(ELEMENT, sOff + o);
            d.set(ELEMENT, dOff + o, x / n);
        }
    }

    /** {@code d = s / n}, unsigned: AVG's finish. */
    static void divUnsigned(MemorySegment s, long sOff, MemorySegment d, long dOff, long count, long n) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
            long x = s.get(ELEMENT, sOff + o);
            d.set(ELEMENT, dOff + o, Long.divideUnsigned(x, n));
        }
    }
}
