package io.jccl.reduce;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@link io.jccl.DataType#BFLOAT16} loops: each element is decoded to {@code float}, computed on in {@code float} and
 * rounded back to nearest even, once per step ({@link BFloat16}). Scalar loops: the conversions dominate and the Vector
 * API has no lane-wise bfloat16 conversion.
 *
 * <p>Fused variants round exactly where the separate steps would, so {@code finish(combine(a, b))} and the fused
 * {@code combine(a, b, finish)} agree bit for bit.
 */
final class BFloat16Kernels {
    private static final ValueLayout.OfShort ELEMENT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int SIZE_BYTES = 2;

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

    private static float decode(short bits) {
        return BFloat16.toFloat(bits);
    }

    private static short encode(float value) {
        return BFloat16.fromFloat(value);
    }

    static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, encode(decode(a.get(ELEMENT, aOff + o)) + decode(b.get(ELEMENT, bOff + o))));
        }
    }

    static void prod(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long count) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
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
        for (long o = 0; o < end; o += SIZE_BYTES) {
            float total = decode(encode(decode(a.get(ELEMENT, aOff + o)) + decode(b.get(ELEMENT, bOff + o))));
            d.set(ELEMENT, dOff + o, encode(total / n));
        }
    }

    /** {@code d = round(s / n)}: AVG's finish. */
    static void div(MemorySegment s, long sOff, MemorySegment d, long dOff, long count, float n) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, encode(decode(s.get(ELEMENT, sOff + o)) / n));
        }
    }

    /** {@code d = round(s * scalar)}: pre-mul-sum's prepare. */
    static void scale(MemorySegment s, long sOff, MemorySegment d, long dOff, long count, float scalar) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
            d.set(ELEMENT, dOff + o, encode(decode(s.get(ELEMENT, sOff + o)) * scalar));
        }
    }

    /** {@code d = round(p + round(l * scalar))}: pre-mul-sum's combineLocal. */
    static void sumScaled(MemorySegment p, long pOff, MemorySegment l, long lOff, MemorySegment d, long dOff,
                          long count, float scalar) {
        long end = count * SIZE_BYTES;
        for (long o = 0; o < end; o += SIZE_BYTES) {
            float scaled = decode(encode(decode(l.get(ELEMENT, lOff + o)) * scalar));
            d.set(ELEMENT, dOff + o, encode(decode(p.get(ELEMENT, pOff + o)) + scaled));
        }
    }
}
