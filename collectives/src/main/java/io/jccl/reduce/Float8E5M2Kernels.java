package io.jccl.reduce;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@link io.jccl.DataType#FLOAT8_E5M2} loops: each element is decoded to {@code float}, computed on in {@code float}
 * and rounded back to nearest even (saturating finite overflow), once per step. The scalar code (tails, MIN/MAX)
 * uses {@link Float8E5M2}, which decodes through a 256-entry table.
 *
 * <p>The vector loops spell the same conversions out in lane-wise integer and float operations ({@link #widen},
 * {@link #narrow}), which agree with {@link Float8E5M2} on every pattern and on every float around each rounding
 * boundary (tested). SUM, PROD, AVG's finish (and its fused last combine, in two passes) and pre-mul-sum's prepare
 * run that way with a scalar tail; MIN/MAX, which must return an operand's own bits, and pre-mul-sum's fused
 * combineLocal stay scalar.
 *
 * <p>Fused variants round exactly where the separate steps would, so {@code finish(combine(a, b))} and the fused
 * {@code combine(a, b, finish)} agree bit for bit.
 */
final class Float8E5M2Kernels {
    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
    /** As many 8-bit lanes as {@link #FLOATS} has float lanes, in a quarter of the bits. */
    private static final VectorSpecies<Byte> BYTES =
            VectorSpecies.of(byte.class, VectorShape.forBitSize(FLOATS.vectorBitSize() / 4));
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfByte ELEMENT = ValueLayout.JAVA_BYTE;
    private static final int SIZE_BYTES = 1;
    private static final long VECTOR_BYTES = BYTES.vectorByteSize();
    /** Elements per block of the two-pass {@link #sumDiv}: 4 KiB per operand. */
    private static final long FUSED_BLOCK = 4096;
    /** Float bits of the largest finite value, Float8E5M2.MAX_VALUE. */
    private static final int MAX_FLOAT_BITS = 0x4760_0000;
    /** Float bits of the smallest normal value. */
    private static final int MIN_NORMAL_FLOAT_BITS = 0x3880_0000;
    /** Adding 2^7 rounds a float below 2^-14 to a multiple of 2^-16 (the float spacing at 2^7): subnormal units. */
    private static final float SUBNORMAL_MAGIC = 0x1p7f;
    private static final int SUBNORMAL_MAGIC_BITS = Float.floatToRawIntBits(SUBNORMAL_MAGIC);

    private Float8E5M2Kernels() {
    }

    static Loops loops(OpSpec spec) {
        return switch (spec.kind()) {
            case PROD -> Loops.plain(Float8E5M2Kernels::prod, SIZE_BYTES);
            case MIN -> Loops.plain(Float8E5M2Kernels::min, SIZE_BYTES);
            case MAX -> Loops.plain(Float8E5M2Kernels::max, SIZE_BYTES);
            case SUM, AVG, PRE_MUL_SUM -> {
                if (spec.finish()) {
                    float n = spec.nRanks();
                    yield Loops.withFinish(Float8E5M2Kernels::sum,
                            (a, ao, b, bo, d, dOff, count) -> sumDiv(a, ao, b, bo, d, dOff, count, n),
                            (s, so, d, dOff, count) -> div(s, so, d, dOff, count, n), SIZE_BYTES);
                }
                if (spec.prepare()) {
                    float scalar = (float) spec.scalar();
                    yield Loops.withPrepare(Float8E5M2Kernels::sum,
                            (p, po, l, lo, d, dOff, count) -> sumScaled(p, po, l, lo, d, dOff, count, scalar),
                            (s, so, d, dOff, count) -> scale(s, so, d, dOff, count, scalar), SIZE_BYTES);
                }
                yield Loops.plain(Float8E5M2Kernels::sum, SIZE_BYTES);
            }
        };
    }

    /**
     * Bytes the vector loop covers: whole vectors, or none when a segment is a heap array other than
     * {@code byte[]} (see {@link Segments}).
     */
    private static long vectorBytes(long count, MemorySegment x, MemorySegment y, MemorySegment z) {
        return Segments.vectorizable(x, y, z, Segments.BYTE_ARRAY) ? BYTES.loopBound(count) * SIZE_BYTES : 0;
    }

    /** Loads {@link #BYTES}{@code .length()} E5M2 values as floats. */
    private static FloatVector load(MemorySegment segment, long offset) {
        ByteVector bits = ByteVector.fromMemorySegment(BYTES, segment, offset, LE);
        return widen((IntVector) bits.convertShape(VectorOperators.ZERO_EXTEND_B2I, INTS, 0));
    }

    /** Rounds floats to E5M2 and stores them. */
    private static void store(FloatVector values, MemorySegment segment, long offset) {
        narrow(values).convertShape(VectorOperators.I2B, BYTES, 0).intoMemorySegment(segment, offset, LE);
    }

    /**
     * E5M2 bits (the low 8 bits of each lane) to the floats they encode, exactly. Moving the exponent and fraction
     * fields into a float's places (shift left by 21) gives the value times 2^-112, so a multiplication by
     * 2^112 finishes normal and subnormal values alike (exactly: a power of two). Infinities and NaNs (exponent
     * all ones) get a float exponent of all ones, keeping their fraction.
     */
    static FloatVector widen(IntVector bits) {
        IntVector magnitude = bits.lanewise(VectorOperators.AND, 0x7F);
        IntVector moved = magnitude.lanewise(VectorOperators.LSHL, 21);
        IntVector finite = moved.reinterpretAsFloats().mul(0x1p112f).reinterpretAsInts();
        finite = finite.blend(moved.lanewise(VectorOperators.OR, 0x7F80_0000),
                magnitude.compare(VectorOperators.GE, 0x7C));
        IntVector sign = bits.lanewise(VectorOperators.AND, 0x80).lanewise(VectorOperators.LSHL, 24);
        return finite.lanewise(VectorOperators.OR, sign).reinterpretAsFloats();
    }

    /**
     * Floats to E5M2 bits in the low 8 bits of each lane, rounding to nearest even and saturating like
     * {@link Float8E5M2#fromFloat}. Magnitudes are clamped to the largest finite value first (finite overflow
     * saturates). Normal results: rebias the exponent and add half a unit minus one plus the lowest kept bit before
     * dropping 21 fraction bits (a carry moves into the exponent). Subnormal results: adding
     * {@link #SUBNORMAL_MAGIC} in float rounds the value to a multiple of the smallest subnormal (the float spacing
     * there), which is the result's bits. Infinities and NaNs: see {@link Float8E5M2#fromFloat}.
     */
    static IntVector narrow(FloatVector values) {
        IntVector bits = values.reinterpretAsInts();
        IntVector magnitude = bits.lanewise(VectorOperators.AND, 0x7FFF_FFFF);
        IntVector clamped = magnitude.min(MAX_FLOAT_BITS);
        IntVector odd = clamped.lanewise(VectorOperators.LSHR, 21).lanewise(VectorOperators.AND, 1);
        IntVector result = clamped.add(-(112 << 23) + (1 << 20) - 1).add(odd).lanewise(VectorOperators.LSHR, 21);
        IntVector subnormal = values.abs().add(SUBNORMAL_MAGIC).reinterpretAsInts().sub(SUBNORMAL_MAGIC_BITS);
        result = result.blend(subnormal, magnitude.compare(VectorOperators.LT, MIN_NORMAL_FLOAT_BITS));
        result = result.blend(0x7C, magnitude.compare(VectorOperators.EQ, 0x7F80_0000));
        result = result.blend(0x7E, magnitude.compare(VectorOperators.GT, 0x7F80_0000));
        IntVector sign = bits.lanewise(VectorOperators.LSHR, 24).lanewise(VectorOperators.AND, 0x80);
        return result.lanewise(VectorOperators.OR, sign);
    }

    private static float decode(byte bits) {
        return Float8E5M2.toFloat(bits);
    }

    private static byte encode(float value) {
        return Float8E5M2.fromFloat(value);
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
            byte x = a.get(ELEMENT, aOff + o);
            byte y = b.get(ELEMENT, bOff + o);
            d.set(ELEMENT, dOff + o, (byte) MinMaxBits.min(x, decode(x), y, decode(y)));
        }
    }

    static void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
            byte x = a.get(ELEMENT, aOff + o);
            byte y = b.get(ELEMENT, bOff + o);
            d.set(ELEMENT, dOff + o, (byte) MinMaxBits.max(x, decode(x), y, decode(y)));
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
