package io.jccl.metaroce.sim;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Position-addressed pseudo-random byte streams: byte {@code p} of stream {@code s} is a function of (s, p) alone
 * (byte {@code p & 7} of the little-endian word {@code splitmix(s + (p >>> 3) * golden)}), so any slice can be filled
 * or checked again without keeping a copy: a shadow that costs no memory.
 */
final class Patterns {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private Patterns() {
    }

    private static long word(long stream, long index) {
        return Fabric.splitmix(stream + index * GOLDEN);
    }

    /** @return byte {@code p} of stream {@code stream} */
    static byte byteAt(long stream, long p) {
        return (byte) (word(stream, p >>> 3) >>> ((p & 7) << 3));
    }

    /** Fills {@code a[from, to)} with the stream, {@code a[i]} getting byte {@code i - origin}. */
    static void fill(byte[] a, int from, int to, long stream, long origin) {
        int i = from;
        while (i < to && ((i - origin) & 7) != 0) {
            a[i] = byteAt(stream, i - origin);
            i++;
        }
        for (; i + 8 <= to; i += 8) {
            LONGS.set(a, i, word(stream, (i - origin) >>> 3));
        }
        for (; i < to; i++) {
            a[i] = byteAt(stream, i - origin);
        }
    }

    /** @return the first index in {@code [from, to)} whose byte differs from the stream, or -1 */
    static int firstMismatch(byte[] a, int from, int to, long stream, long origin) {
        int i = from;
        while (i < to && ((i - origin) & 7) != 0) {
            if (a[i] != byteAt(stream, i - origin)) {
                return i;
            }
            i++;
        }
        for (; i + 8 <= to; i += 8) {
            if ((long) LONGS.get(a, i) != word(stream, (i - origin) >>> 3)) {
                break;
            }
        }
        for (; i < to; i++) {
            if (a[i] != byteAt(stream, i - origin)) {
                return i;
            }
        }
        return -1;
    }
}
