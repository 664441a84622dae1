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
 * and rounded back to nearest even (saturating finite overflow), once per step. The scalar code (tails,
 * MIN/MAX, pre-mul-sum's fused combineLocal) uses {@link Float8E5M2}, which decodes through a
 * 256-entry table.
 *
 * <p>The vector code works in stages over blocks of {@value #BLOCK} elements, through a per-thread scratch array
 * ({@link Scratch}): {@link #widenBlock} decodes a block of each operand to floats, a float loop computes, and
 * {@link #narrowBlock} encodes the result into {@code dst}. The conversions are lane-wise integer and float
 * operations that give exactly the scalar code's bits (tested on every pattern and on every float around each
 * rounding boundary). Staging keeps each loop small: one loop doing two decodes, the arithmetic and the encode is
 * more than C2's inlining budget, and C2 then leaves Vector API calls out of line and boxes every vector (slow, and
 * allocating). No method here passes a vector to another method for the same reason.
 *
 * <p>Fused variants round exactly where the separate steps would, so {@code finish(combine(a, b))} and the fused
 * {@code combine(a, b, finish)} agree bit for bit; {@code dst} may be an input, each block of the inputs being read
 * before that block of {@code dst} is written.
 */
final class Float8E5M2Kernels {
    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
    /** As many 8-bit lanes as {@link #FLOATS} has float lanes. */
    private static final VectorSpecies<Byte> LANES =
            VectorSpecies.of(byte.class, VectorShape.forBitSize(FLOATS.vectorBitSize() / 4));
    private static final int LANE_COUNT = FLOATS.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfByte ELEMENT = ValueLayout.JAVA_BYTE;
    private static final int SIZE_BYTES = 1;
    /** Elements per stage; a multiple of every lane count. */
    static final int BLOCK = Scratch.BLOCK;
    /** Float bits of the largest finite value, {@link Float8E5M2#MAX_VALUE}. */
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
     * Elements the vector stages cover: whole vectors, or none when a segment is a heap array other than
     * {@code byte[]} (see {@link Segments}).
     */
    private static long vectorCount(long count, MemorySegment x, MemorySegment y, MemorySegment z) {
        return Segments.vectorizable(x, y, z, Segments.BYTE_ARRAY) ? FLOATS.loopBound(count) : 0;
    }

    /**
     * Decodes {@code count} E5M2 values (a multiple of the lane count) at {@code srcOffset} into
     * {@code out[outIndex...]}, exactly as {@link Float8E5M2#toFloat}. Moving the exponent and fraction fields into a
     * float's places (shift left by 21) gives the value times 2^-112, so a multiplication by 2^112
     * finishes normal and subnormal values alike (exactly: a power of two).
     * Infinities and NaNs (exponent all ones) get a float exponent of all ones, keeping their fraction.
     */
    static void widenBlock(MemorySegment src, long srcOffset, float[] out, int outIndex, int count) {
        for (int i = 0; i < count; i += LANE_COUNT) {
            long at = srcOffset + (long) i * SIZE_BYTES;
            IntVector bits = (IntVector) ByteVector.fromMemorySegment(LANES, src, at, LE)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2I, INTS, 0);
            IntVector magnitude = bits.lanewise(VectorOperators.AND, 0x7F);
            IntVector moved = magnitude.lanewise(VectorOperators.LSHL, 21);
            IntVector finite = moved.reinterpretAsFloats().mul(0x1p112f).reinterpretAsInts();
            finite = finite.blend(moved.lanewise(VectorOperators.OR, 0x7F80_0000),
                    magnitude.compare(VectorOperators.GE, 0x7C));
            FloatVector decoded = finite.lanewise(VectorOperators.OR,
                    bits.lanewise(VectorOperators.AND, 0x80).lanewise(VectorOperators.LSHL, 24)).reinterpretAsFloats();
            decoded.intoArray(out, outIndex + i);
        }
    }

    /**
     * Encodes {@code in[inIndex...]}, {@code count} floats (a multiple of the lane count), as E5M2 at
     * {@code dstOffset}: the same bits as {@link Float8E5M2#fromFloat}. Magnitudes are clamped to the largest finite
     * value first (finite overflow saturates). Normal results: rebias the exponent and add half a unit minus one plus
     * the lowest kept bit before dropping 21 fraction bits (a carry moves into the exponent). Subnormal results:
     * adding {@link #SUBNORMAL_MAGIC} in float rounds the value to a multiple of the smallest subnormal (the float
     * spacing there), which is the result's bits. Infinities stay infinite and NaNs become the quiet NaN {@code 0x7E}.
     */
    static void narrowBlock(float[] in, int inIndex, MemorySegment dst, long dstOffset, int count) {
        for (int i = 0; i < count; i += LANE_COUNT) {
            FloatVector values = FloatVector.fromArray(FLOATS, in, inIndex + i);
            IntVector bits = values.reinterpretAsInts();
            IntVector magnitude = bits.lanewise(VectorOperators.AND, 0x7FFF_FFFF);
            IntVector clamped = magnitude.min(MAX_FLOAT_BITS);
            IntVector odd = clamped.lanewise(VectorOperators.LSHR, 21).lanewise(VectorOperators.AND, 1);
            IntVector result = clamped.add(-(112 << 23) + (1 << 20) - 1).add(odd).lanewise(VectorOperators.LSHR, 21);
            IntVector subnormal = values.abs().add(SUBNORMAL_MAGIC).reinterpretAsInts().sub(SUBNORMAL_MAGIC_BITS);
            result = result.blend(subnormal, magnitude.compare(VectorOperators.LT, MIN_NORMAL_FLOAT_BITS));
            result = result.blend(0x7C, magnitude.compare(VectorOperators.EQ, 0x7F80_0000));
            result = result.blend(0x7E, magnitude.compare(VectorOperators.GT, 0x7F80_0000));
            result = result.lanewise(VectorOperators.OR,
                    bits.lanewise(VectorOperators.LSHR, 24).lanewise(VectorOperators.AND, 0x80));
            result.convertShape(VectorOperators.I2B, LANES, 0)
                    .intoMemorySegment(dst, dstOffset + (long) i * SIZE_BYTES, LE);
        }
    }

    /** {@code x[i] = x[i] + x[BLOCK + i]} for {@code i < count}. */
    private static void addSecondBlock(float[] x, int count) {
        for (int i = 0; i < count; i += LANE_COUNT) {
            FloatVector.fromArray(FLOATS, x, i).add(FloatVector.fromArray(FLOATS, x, BLOCK + i)).intoArray(x, i);
        }
    }

    /** {@code x[i] = x[i] * x[BLOCK + i]} for {@code i < count}. */
    private static void multiplySecondBlock(float[] x, int count) {
        for (int i = 0; i < count; i += LANE_COUNT) {
            FloatVector.fromArray(FLOATS, x, i).mul(FloatVector.fromArray(FLOATS, x, BLOCK + i)).intoArray(x, i);
        }
    }

    /** {@code x[i] = x[i] / n} for {@code i < count}. */
    private static void divide(float[] x, int count, float n) {
        for (int i = 0; i < count; i += LANE_COUNT) {
            FloatVector.fromArray(FLOATS, x, i).div(n).intoArray(x, i);
        }
    }

    /** {@code x[i] = x[i] * scalar} for {@code i < count}. */
    private static void multiply(float[] x, int count, float scalar) {
        for (int i = 0; i < count; i += LANE_COUNT) {
            FloatVector.fromArray(FLOATS, x, i).mul(scalar).intoArray(x, i);
        }
    }

    private static float decode(byte bits) {
        return Float8E5M2.toFloat(bits);
    }

    private static byte encode(float value) {
        return Float8E5M2.fromFloat(value);
    }

    static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long vectors = vectorCount(count, a, b, d);
        if (vectors > 0) {
            float[] x = Scratch.floats();
            for (long done = 0; done < vectors; done += BLOCK) {
                int n = (int) Math.min(BLOCK, vectors - done);
                long o = done * SIZE_BYTES;
                widenBlock(a, aOff + o, x, 0, n);
                widenBlock(b, bOff + o, x, BLOCK, n);
                addSecondBlock(x, n);
                narrowBlock(x, 0, d, dOff + o, n);
            }
        }
        long end = count * SIZE_BYTES;
        for (long o = vectors * SIZE_BYTES; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, encode(decode(a.get(ELEMENT, aOff + o)) + decode(b.get(ELEMENT, bOff + o))));
        }
    }

    static void prod(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long vectors = vectorCount(count, a, b, d);
        if (vectors > 0) {
            float[] x = Scratch.floats();
            for (long done = 0; done < vectors; done += BLOCK) {
                int n = (int) Math.min(BLOCK, vectors - done);
                long o = done * SIZE_BYTES;
                widenBlock(a, aOff + o, x, 0, n);
                widenBlock(b, bOff + o, x, BLOCK, n);
                multiplySecondBlock(x, n);
                narrowBlock(x, 0, d, dOff + o, n);
            }
        }
        long end = count * SIZE_BYTES;
        for (long o = vectors * SIZE_BYTES; o < end; o += SIZE_BYTES) {
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
     * {@code d = round(round(a + b) / n)}: AVG's last combine with the finish fused, as {@link #sum} then
     * {@link #div} in place, block by block (so the rounded sum is still in L1).
     */
    static void sumDiv(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff,
                       long count, float n) {
        for (long done = 0; done < count; done += BLOCK) {
            long block = Math.min(BLOCK, count - done);
            long o = done * SIZE_BYTES;
            sum(a, aOff + o, b, bOff + o, d, dOff + o, block);
            div(d, dOff + o, d, dOff + o, block, n);
        }
    }

    /** {@code d = round(s / n)}: AVG's finish. */
    static void div(MemorySegment s, long sOff, MemorySegment d, long dOff, long count, float n) {
        long vectors = vectorCount(count, s, d, d);
        if (vectors > 0) {
            float[] x = Scratch.floats();
            for (long done = 0; done < vectors; done += BLOCK) {
                int block = (int) Math.min(BLOCK, vectors - done);
                long o = done * SIZE_BYTES;
                widenBlock(s, sOff + o, x, 0, block);
                divide(x, block, n);
                narrowBlock(x, 0, d, dOff + o, block);
            }
        }
        long end = count * SIZE_BYTES;
        for (long o = vectors * SIZE_BYTES; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, encode(decode(s.get(ELEMENT, sOff + o)) / n));
        }
    }

    /** {@code d = round(s * scalar)}: pre-mul-sum's prepare. */
    static void scale(MemorySegment s, long sOff, MemorySegment d, long dOff, long count, float scalar) {
        long vectors = vectorCount(count, s, d, d);
        if (vectors > 0) {
            float[] x = Scratch.floats();
            for (long done = 0; done < vectors; done += BLOCK) {
                int block = (int) Math.min(BLOCK, vectors - done);
                long o = done * SIZE_BYTES;
                widenBlock(s, sOff + o, x, 0, block);
                multiply(x, block, scalar);
                narrowBlock(x, 0, d, dOff + o, block);
            }
        }
        long end = count * SIZE_BYTES;
        for (long o = vectors * SIZE_BYTES; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, encode(decode(s.get(ELEMENT, sOff + o)) * scalar));
        }
    }

    /** {@code d = round(p + round(l * scalar))}: pre-mul-sum's combineLocal (scalar: rarely hot). */
    static void sumScaled(MemorySegment p, long pOff, MemorySegment l, long lOff, MemorySegment d, long dOff,
                          long count, float scalar) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
            float scaled = decode(encode(decode(l.get(ELEMENT, lOff + o)) * scalar));
            d.set(ELEMENT, dOff + o, encode(decode(p.get(ELEMENT, pOff + o)) + scaled));
        }
    }
}
