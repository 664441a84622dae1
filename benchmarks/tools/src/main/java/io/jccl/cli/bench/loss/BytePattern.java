package io.jccl.cli.bench.loss;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The deterministic bytes a loss-benchmark transfer carries: byte {@code i} of the transfer is byte {@code i % 8}
 * (little-endian) of a SplitMix64 hash of the seed and {@code i / 8}, so the receiver checks each byte against its
 * place in the whole transfer (a message delivered at the wrong offset, or twice, is caught) without a copy of it.
 */
public final class BytePattern {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private BytePattern() {
    }

    /**
     * @param seed   the transfer's seed
     * @param offset a byte offset in the transfer
     * @return the 8 bytes at {@code offset & ~7}, little-endian
     */
    static long word(long seed, long offset) {
        long z = seed + 0x9E3779B97F4A7C15L * ((offset >>> 3) + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Fills {@code segment} with the transfer's bytes from offset 0.
     *
     * @param segment the memory
     * @param seed    the transfer's seed
     */
    public static void fill(MemorySegment segment, long seed) {
        long size = segment.byteSize();
        long i = 0;
        for (; i + 8 <= size; i += 8) {
            segment.set(WORD, i, word(seed, i));
        }
        for (; i < size; i++) {
            segment.set(ValueLayout.JAVA_BYTE, i, (byte) (word(seed, i) >>> (8 * (i & 7))));
        }
    }

    /**
     * Checks {@code segment} against the transfer's bytes from offset 0.
     *
     * @param segment the memory
     * @param seed    the transfer's seed
     * @return the number of wrong bytes (0 when all are right) and the offset of the first, -1 when none
     */
    public static long[] check(MemorySegment segment, long seed) {
        long size = segment.byteSize();
        long wrong = 0;
        long first = -1;
        long i = 0;
        for (; i + 8 <= size; i += 8) {
            long diff = segment.get(WORD, i) ^ word(seed, i);
            if (diff != 0) {
                for (int b = 0; b < 8; b++) {
                    if ((diff >>> (8 * b) & 0xFF) != 0) {
                        wrong++;
                        first = first < 0 ? i + b : first;
                    }
                }
            }
        }
        for (; i < size; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, i) != (byte) (word(seed, i) >>> (8 * (i & 7)))) {
                wrong++;
                first = first < 0 ? i : first;
            }
        }
        return new long[] {wrong, first};
    }
}
