package io.jccl.reduce;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@link io.jccl.DataType#FLOAT16} loops: each element is decoded to {@code float}, computed on in {@code float}
 * and rounded back to nearest even, once per step. The scalar code (tails, MIN/MAX) uses the JDK's
 * {@link Float#float16ToFloat} and {@link Float#floatToFloat16}.
 *
 * <p>The Vector API (JDK 25) has no lane-wise binary16 conversion, so the vector loops spell the same conversions
 * out in lane-wise integer and float operations ({@link #widen}, {@link #narrow}); for every non-NaN value they give
 * the JDK's bits (tested on every binary16 pattern and on every float around each rounding boundary), and NaN stays
 * NaN. SUM, PROD, AVG's finish (and its fused last combine, in two passes) and pre-mul-sum's prepare run that way
 * with a scalar tail; MIN/MAX, which must return an operand's own bits, and pre-mul-sum's fused combineLocal stay
 * scalar.
 *
 * <p>Fused variants round exactly where the separate steps would, so {@code finish(combine(a, b))} and the fused
 * {@code combine(a, b, finish)} agree bit for bit.
 */
final class Float16Kernels {
    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
    /** As many 16-bit lanes as {@link #FLOATS} has float lanes, in half the bits. */
    private static final VectorSpecies<Short> SHORTS =
            VectorSpecies.of(short.class, VectorShape.forBitSize(FLOATS.vectorBitSize() / 2));
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfShort ELEMENT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    private static final int SIZE_BYTES = 2;
    private static final long VECTOR_BYTES = SHORTS.vectorByteSize();
    /** Elements per block of the two-pass {@link #sumDiv}: 4 KiB of binary16 per operand. */
    private static final long FUSED_BLOCK = 2048;

    private Float16Kernels() {
    }

    static Loops loops(OpSpec spec) {
        return switch (spec.kind()) {
            case PROD -> Loops.plain(Float16Kernels::prod, SIZE_BYTES);
            case MIN -> Loops.plain(Float16Kernels::min, SIZE_BYTES);
            case MAX -> Loops.plain(Float16Kernels::max, SIZE_BYTES);
            case SUM, AVG, PRE_MUL_SUM -> {
                if (spec.finish()) {
                    float n = spec.nRanks();
                    yield Loops.withFinish(Float16Kernels::sum,
                            (a, ao, b, bo, d, dOff, count) -> sumDiv(a, ao, b, bo, d, dOff, count, n),
                            (s, so, d, dOff, count) -> div(s, so, d, dOff, count, n), SIZE_BYTES);
                }
                if (spec.prepare()) {
                    float scalar = (float) spec.scalar();
                    yield Loops.withPrepare(Float16Kernels::sum,
                            (p, po, l, lo, d, dOff, count) -> sumScaled(p, po, l, lo, d, dOff, count, scalar),
                            (s, so, d, dOff, count) -> scale(s, so, d, dOff, count, scalar), SIZE_BYTES);
                }
                yield Loops.plain(Float16Kernels::sum, SIZE_BYTES);
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

    /** Loads {@link #SHORTS}{@code .length()} binary16 values as floats. */
    private static FloatVector load(MemorySegment segment, long offset) {
        ShortVector bits = ShortVector.fromMemorySegment(SHORTS, segment, offset, LE);
        return widen((IntVector) bits.convertShape(VectorOperators.ZERO_EXTEND_S2I, INTS, 0));
    }

    /** Rounds floats to binary16 and stores them. */
    private static void store(FloatVector values, MemorySegment segment, long offset) {
        narrow(values).convertShape(VectorOperators.I2S, SHORTS, 0).intoMemorySegment(segment, offset, LE);
    }

    /**
     * binary16 bits (the low 16 bits of each lane) to the floats they encode, exactly. Moving the exponent and
     * fraction fields into a float's places (shift left by 13) gives the value times 2^-112, so a multiplication
     * by 2^112 finishes normal and subnormal values alike (exactly: a power of two); infinities and NaNs instead get
     * an all-ones exponent, keeping their fraction.
     */
    static FloatVector widen(IntVector bits) {
        IntVector magnitude = bits.lanewise(VectorOperators.AND, 0x7FFF);
        IntVector moved = magnitude.lanewise(VectorOperators.LSHL, 13);
        IntVector finite = moved.reinterpretAsFloats().mul(0x1p112f).reinterpretAsInts();
        IntVector special = moved.lanewise(VectorOperators.OR, 0x7F80_0000);
        IntVector sign = bits.lanewise(VectorOperators.AND, 0x8000).lanewise(VectorOperators.LSHL, 16);
        return finite.blend(special, magnitude.compare(VectorOperators.GE, 0x7C00))
                .lanewise(VectorOperators.OR, sign).reinterpretAsFloats();
    }

    /**
     * Floats to binary16 bits in the low 16 bits of each lane, rounding to nearest even. Normal results: rebias the
     * exponent and add {@code 0xFFF} plus the lowest kept bit before dropping 13 fraction bits (a carry moves into
     * the exponent, up to infinity); magnitudes are first clamped to 65536, which that yields infinity for.
     * Subnormal results: adding 0.5 in float rounds the value to a multiple of 2^-24 (the float spacing at 0.5),
     * which is the result's fraction. NaN: the quiet NaN {@code 0x7E00}, with the sign.
     */
    static IntVector narrow(FloatVector values) {
        IntVector bits = values.reinterpretAsInts();
        IntVector magnitude = bits.lanewise(VectorOperators.AND, 0x7FFF_FFFF);
        IntVector clamped = magnitude.min(0x4780_0000);
        IntVector odd = clamped.lanewise(VectorOperators.LSHR, 13).lanewise(VectorOperators.AND, 1);
        IntVector result = clamped.add(((15 - 127) << 23) + 0xFFF).add(odd).lanewise(VectorOperators.LSHR, 13);
        IntVector subnormal = values.abs().add(0.5f).reinterpretAsInts().sub(0x3F00_0000);
        result = result.blend(subnormal, magnitude.compare(VectorOperators.LT, 0x3880_0000));
        result = result.lanewise(VectorOperators.OR, 0x0200, magnitude.compare(VectorOperators.GT, 0x7F80_0000));
        IntVector sign = bits.lanewise(VectorOperators.LSHR, 16).lanewise(VectorOperators.AND, 0x8000);
        return result.lanewise(VectorOperators.OR, sign);
    }

    private static float decode(short bits) {
        return Float.float16ToFloat(bits);
    }

    private static short encode(float value) {
        return Float.floatToFloat16(value);
    }

    static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, a, b, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            store(load(a, aOff + o).add(load(b, bOff + o)), d, dOff + o);
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
            store(load(a, aOff + o).mul(load(b, bOff + o)), d, dOff + o);
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

    /**
     * {@code d = round(round(a + b) / n)}: AVG's last combine with the finish fused, as two passes over blocks that
     * stay in L1 ({@link #sum}, then {@link #div} in place): one loop doing both is too large for C2 to inline the
     * Vector API calls into, and it would box every vector. Rounding the sum through {@code dst} is exactly what the
     * separate steps do; {@code dst} may be {@code a} or {@code b}, each element being read before it is written.
     */
    static void sumDiv(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff,
                       long count, float n) {
        for (long done = 0; done < count; done += FUSED_BLOCK) {
            long block = Math.min(FUSED_BLOCK, count - done);
            long o = done * SIZE_BYTES;
            sum(a, aOff + o, b, bOff + o, d, dOff + o, block);
            div(d, dOff + o, d, dOff + o, block, n);
        }
    }

    /** {@code d = round(s / n)}: AVG's finish. */
    static void div(MemorySegment s, long sOff, MemorySegment d, long dOff, long count, float n) {
        long end = count * SIZE_BYTES;
        long vectorEnd = vectorBytes(count, s, d, d);
        long o = 0;
        for (; o < vectorEnd; o += VECTOR_BYTES) {
            store(load(s, sOff + o).div(n), d, dOff + o);
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
            store(load(s, sOff + o).mul(scalar), d, dOff + o);
        }
        for (; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, encode(decode(s.get(ELEMENT, sOff + o)) * scalar));
        }
    }

    /**
     * {@code d = round(p + round(l * scalar))}: pre-mul-sum's combineLocal. Scalar: a vector loop doing both steps is
     * too large for C2 to inline the Vector API calls into, and two passes through {@code dst} would overwrite
     * {@code p} when it is {@code dst}.
     */
    static void sumScaled(MemorySegment p, long pOff, MemorySegment l, long lOff, MemorySegment d, long dOff,
                          long count, float scalar) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
            float scaled = decode(encode(decode(l.get(ELEMENT, lOff + o)) * scalar));
            d.set(ELEMENT, dOff + o, encode(decode(p.get(ELEMENT, pOff + o)) + scaled));
        }
    }
}
