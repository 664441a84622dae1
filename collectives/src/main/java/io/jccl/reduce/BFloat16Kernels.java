package io.jccl.reduce;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static jdk.incubator.vector.VectorOperators.AND;
import static jdk.incubator.vector.VectorOperators.GT;
import static jdk.incubator.vector.VectorOperators.I2S;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.OR;
import static jdk.incubator.vector.VectorOperators.ZERO_EXTEND_S2I;

/**
 * {@link io.jccl.DataType#BFLOAT16} loops: each element is decoded to {@code float}, computed on in {@code float}
 * and rounded back to nearest even, once per step, exactly as {@link BFloat16} does.
 *
 * <p>bfloat16 is the top half of a float, so both conversions are a few integer operations, written out in each
 * vector loop (no method here passes a vector to another: a helper that C2 compiled on its own can later be "too
 * big to inline", and vectors crossing the call get boxed). Decoding zero-extends each 16-bit lane to 32 bits and
 * shifts it left by 16; encoding adds the rounding bias ({@code 0x7FFF} plus the lowest kept bit; a carry moves
 * into the exponent, up to infinity), keeps NaNs NaN by setting the quiet bit instead, and narrows back to 16 bits,
 * exactly as {@link BFloat16#fromFloat}. SUM, PROD and the AVG and pre-mul-sum steps run that way, one pass, a
 * float vector's worth of lanes at a time, with a scalar tail; MIN/MAX, which must return an operand's own bits,
 * stay scalar.
 *
 * <p>Fused variants round exactly where the separate steps would, so {@code finish(combine(a, b))} and the fused
 * {@code combine(a, b, finish)} agree bit for bit.
 */
final class BFloat16Kernels {
    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
    /** As many 16-bit lanes as {@link #FLOATS} has float lanes, in half the bits. */
    private static final VectorSpecies<Short> SHORTS =
            VectorSpecies.of(short.class, VectorShape.forBitSize(FLOATS.vectorBitSize() / 2));
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfShort ELEMENT = LittleEndian.SHORT;
    private static final int SIZE_BYTES = 2;
    private static final long VECTOR_BYTES = SHORTS.vectorByteSize();

    private BFloat16Kernels() {
    }

    static Loops loops(OpSpec spec) {
        return switch (spec.kind()) {
            case PROD -> Loops.plain(BFloat16Kernels::prod, SIZE_BYTES);
            case MIN -> Loops.plain(BFloat16Kernels::min, SIZE_BYTES);
            case MAX -> Loops.plain(BFloat16Kernels::max, SIZE_BYTES);
            case SUM, AVG, PRE_MUL_SUM -> {
                if (spec.finish()) {
                    float n = spec.nRanks();
                    yield Loops.withFinish(BFloat16Kernels::sum,
                            (a, ao, b, bo, d, dOff, count) -> sumDiv(a, ao, b, bo, d, dOff, count, n),
                            (s, so, d, dOff, count) -> div(s, so, d, dOff, count, n), SIZE_BYTES);
                }
                if (spec.prepare()) {
                    float scalar = (float) spec.scalar();
                    yield Loops.withPrepare(BFloat16Kernels::sum,
                            (p, po, l, lo, d, dOff, count) -> sumScaled(p, po, l, lo, d, dOff, count, scalar),
                            (s, so, d, dOff, count) -> scale(s, so, d, dOff, count, scalar), SIZE_BYTES);
                }
                yield Loops.plain(BFloat16Kernels::sum, SIZE_BYTES);
            }
        };
    }

    /**
     * Bytes the vector loop covers: whole vectors, or none when a segment is a heap array other than
     * {@code short[]} (see {@link Segments}).
     */
    private static long vectorBytes(long count, MemorySegment x, MemorySegment y, MemorySegment z) {
        return Segments.vectorizable(x, y, z, Segments.SHORT_ARRAY) ? SHORTS.loopBound(count) * SIZE_BYTES : 0;
    }

    private static float decode(short bits) {
        return BFloat16.toFloat(bits);
    }

    private static short encode(float value) {
        return BFloat16.fromFloat(value);
    }

    static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            FloatVector x = ((IntVector) ShortVector.fromMemorySegment(SHORTS, a, aOff + o, LE)
                    .convertShape(ZERO_EXTEND_S2I, INTS, 0)).lanewise(LSHL, 16).reinterpretAsFloats();
            FloatVector y = ((IntVector) ShortVector.fromMemorySegment(SHORTS, b, bOff + o, LE)
                    .convertShape(ZERO_EXTEND_S2I, INTS, 0)).lanewise(LSHL, 16).reinterpretAsFloats();
            FloatVector r = x.add(y);
            IntVector resultBits = r.reinterpretAsInts();
            IntVector resultHigh = resultBits.lanewise(LSHR, 16);
            IntVector result = resultBits.add(resultHigh.lanewise(AND, 1)).add(0x7FFF).lanewise(LSHR, 16)
                    .blend(resultHigh.lanewise(OR, 0x0040),
                            resultBits.lanewise(AND, 0x7FFF_FFFF).compare(GT, 0x7F80_0000));
            result.convertShape(I2S, SHORTS, 0).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, encode(decode(a.get(ELEMENT, aOff + o)) + decode(b.get(ELEMENT, bOff + o))));
        }
    }

    static void prod(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            FloatVector x = ((IntVector) ShortVector.fromMemorySegment(SHORTS, a, aOff + o, LE)
                    .convertShape(ZERO_EXTEND_S2I, INTS, 0)).lanewise(LSHL, 16).reinterpretAsFloats();
            FloatVector y = ((IntVector) ShortVector.fromMemorySegment(SHORTS, b, bOff + o, LE)
                    .convertShape(ZERO_EXTEND_S2I, INTS, 0)).lanewise(LSHL, 16).reinterpretAsFloats();
            FloatVector r = x.mul(y);
            IntVector resultBits = r.reinterpretAsInts();
            IntVector resultHigh = resultBits.lanewise(LSHR, 16);
            IntVector result = resultBits.add(resultHigh.lanewise(AND, 1)).add(0x7FFF).lanewise(LSHR, 16)
                    .blend(resultHigh.lanewise(OR, 0x0040),
                            resultBits.lanewise(AND, 0x7FFF_FFFF).compare(GT, 0x7F80_0000));
            result.convertShape(I2S, SHORTS, 0).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, encode(decode(a.get(ELEMENT, aOff + o)) * decode(b.get(ELEMENT, bOff + o))));
        }
    }

    static void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
            short x = a.get(ELEMENT, aOff + o);
            short y = b.get(ELEMENT, bOff + o);
            d.set(ELEMENT, dOff + o, (short) MinMaxBits.min(x, decode(x), y, decode(y)));
        }
    }

    static void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
            short x = a.get(ELEMENT, aOff + o);
            short y = b.get(ELEMENT, bOff + o);
            d.set(ELEMENT, dOff + o, (short) MinMaxBits.max(x, decode(x), y, decode(y)));
        }
    }

    /** {@code d = round(round(a + b) / n)}: AVG's last combine with the finish fused. */
    static void sumDiv(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff,
                       long count, float n) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            FloatVector x = ((IntVector) ShortVector.fromMemorySegment(SHORTS, a, aOff + o, LE)
                    .convertShape(ZERO_EXTEND_S2I, INTS, 0)).lanewise(LSHL, 16).reinterpretAsFloats();
            FloatVector y = ((IntVector) ShortVector.fromMemorySegment(SHORTS, b, bOff + o, LE)
                    .convertShape(ZERO_EXTEND_S2I, INTS, 0)).lanewise(LSHL, 16).reinterpretAsFloats();
            FloatVector total = x.add(y);
            IntVector roundedBits = total.reinterpretAsInts();
            IntVector roundedHigh = roundedBits.lanewise(LSHR, 16);
            IntVector rounded = roundedBits.add(roundedHigh.lanewise(AND, 1)).add(0x7FFF).lanewise(LSHR, 16)
                    .blend(roundedHigh.lanewise(OR, 0x0040),
                            roundedBits.lanewise(AND, 0x7FFF_FFFF).compare(GT, 0x7F80_0000));
            FloatVector sum = rounded.lanewise(LSHL, 16).reinterpretAsFloats();
            FloatVector r = sum.div(n);
            IntVector resultBits = r.reinterpretAsInts();
            IntVector resultHigh = resultBits.lanewise(LSHR, 16);
            IntVector result = resultBits.add(resultHigh.lanewise(AND, 1)).add(0x7FFF).lanewise(LSHR, 16)
                    .blend(resultHigh.lanewise(OR, 0x0040),
                            resultBits.lanewise(AND, 0x7FFF_FFFF).compare(GT, 0x7F80_0000));
            result.convertShape(I2S, SHORTS, 0).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            float total = decode(encode(decode(a.get(ELEMENT, aOff + o)) + decode(b.get(ELEMENT, bOff + o))));
            d.set(ELEMENT, dOff + o, encode(total / n));
        }
    }

    /** {@code d = round(s / n)}: AVG's finish. */
    static void div(MemorySegment s, long sOff, MemorySegment d, long dOff, long count, float n) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, s, d, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            FloatVector x = ((IntVector) ShortVector.fromMemorySegment(SHORTS, s, sOff + o, LE)
                    .convertShape(ZERO_EXTEND_S2I, INTS, 0)).lanewise(LSHL, 16).reinterpretAsFloats();
            FloatVector r = x.div(n);
            IntVector resultBits = r.reinterpretAsInts();
            IntVector resultHigh = resultBits.lanewise(LSHR, 16);
            IntVector result = resultBits.add(resultHigh.lanewise(AND, 1)).add(0x7FFF).lanewise(LSHR, 16)
                    .blend(resultHigh.lanewise(OR, 0x0040),
                            resultBits.lanewise(AND, 0x7FFF_FFFF).compare(GT, 0x7F80_0000));
            result.convertShape(I2S, SHORTS, 0).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, encode(decode(s.get(ELEMENT, sOff + o)) / n));
        }
    }

    /** {@code d = round(s * scalar)}: pre-mul-sum's prepare. */
    static void scale(MemorySegment s, long sOff, MemorySegment d, long dOff, long count, float scalar) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, s, d, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            FloatVector x = ((IntVector) ShortVector.fromMemorySegment(SHORTS, s, sOff + o, LE)
                    .convertShape(ZERO_EXTEND_S2I, INTS, 0)).lanewise(LSHL, 16).reinterpretAsFloats();
            FloatVector r = x.mul(scalar);
            IntVector resultBits = r.reinterpretAsInts();
            IntVector resultHigh = resultBits.lanewise(LSHR, 16);
            IntVector result = resultBits.add(resultHigh.lanewise(AND, 1)).add(0x7FFF).lanewise(LSHR, 16)
                    .blend(resultHigh.lanewise(OR, 0x0040),
                            resultBits.lanewise(AND, 0x7FFF_FFFF).compare(GT, 0x7F80_0000));
            result.convertShape(I2S, SHORTS, 0).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, encode(decode(s.get(ELEMENT, sOff + o)) * scalar));
        }
    }

    /** {@code d = round(p + round(l * scalar))}: pre-mul-sum's combineLocal. */
    static void sumScaled(MemorySegment p, long pOff, MemorySegment l, long lOff, MemorySegment d, long dOff,
                          long count, float scalar) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, p, l, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            FloatVector x = ((IntVector) ShortVector.fromMemorySegment(SHORTS, p, pOff + o, LE)
                    .convertShape(ZERO_EXTEND_S2I, INTS, 0)).lanewise(LSHL, 16).reinterpretAsFloats();
            FloatVector y = ((IntVector) ShortVector.fromMemorySegment(SHORTS, l, lOff + o, LE)
                    .convertShape(ZERO_EXTEND_S2I, INTS, 0)).lanewise(LSHL, 16).reinterpretAsFloats();
            FloatVector product = y.mul(scalar);
            IntVector roundedBits = product.reinterpretAsInts();
            IntVector roundedHigh = roundedBits.lanewise(LSHR, 16);
            IntVector rounded = roundedBits.add(roundedHigh.lanewise(AND, 1)).add(0x7FFF).lanewise(LSHR, 16)
                    .blend(roundedHigh.lanewise(OR, 0x0040),
                            roundedBits.lanewise(AND, 0x7FFF_FFFF).compare(GT, 0x7F80_0000));
            FloatVector scaled = rounded.lanewise(LSHL, 16).reinterpretAsFloats();
            FloatVector r = x.add(scaled);
            IntVector resultBits = r.reinterpretAsInts();
            IntVector resultHigh = resultBits.lanewise(LSHR, 16);
            IntVector result = resultBits.add(resultHigh.lanewise(AND, 1)).add(0x7FFF).lanewise(LSHR, 16)
                    .blend(resultHigh.lanewise(OR, 0x0040),
                            resultBits.lanewise(AND, 0x7FFF_FFFF).compare(GT, 0x7F80_0000));
            result.convertShape(I2S, SHORTS, 0).intoMemorySegment(d, dOff + o, LE);
        }
        for (; o < end; o += SIZE_BYTES) {
            float scaled = decode(encode(decode(l.get(ELEMENT, lOff + o)) * scalar));
            d.set(ELEMENT, dOff + o, encode(decode(p.get(ELEMENT, pOff + o)) + scaled));
        }
    }
}
