package io.jccl.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How {@link DirectAllReduce} splits a message into one block per rank. */
class DirectAllReduceBlocksTest {
    @Test
    void blocksCoverTheCountInOrderOnCacheLineBoundariesAndNearlyEqual() {
        for (int elementBytes : new int[] {1, 2, 4, 8}) {
            long align = DirectAllReduce.BLOCK_ALIGN_BYTES / elementBytes;
            for (int ranks = 1; ranks <= 9; ranks++) {
                for (long count : new long[] {0, 1, 2, 15, 16, 17, 63, 64, 65, 1000, 1021, 4096, 300_007}) {
                    assertThat(DirectAllReduce.blockStart(count, elementBytes, ranks, 0)).isZero();
                    assertThat(DirectAllReduce.blockStart(count, elementBytes, ranks, ranks)).isEqualTo(count);
                    long smallest = Long.MAX_VALUE;
                    long largest = 0;
                    for (int b = 0; b < ranks; b++) {
                        long start = DirectAllReduce.blockStart(count, elementBytes, ranks, b);
                        long end = DirectAllReduce.blockStart(count, elementBytes, ranks, b + 1);
                        assertThat(end).as("block %d of %d (count %d)", b, ranks, count).isGreaterThanOrEqualTo(start);
                        assertThat(start % align == 0 || start == count).as("block %d starts aligned", b).isTrue();
                        smallest = Math.min(smallest, end - start);
                        largest = Math.max(largest, end - start);
                    }
                    if (count >= ranks * align) {
                        assertThat(largest - smallest).as("%d ranks, count %d", ranks, count)
                                .isLessThan(2 * align);
                    }
                }
            }
        }
    }

    @Test
    void aSmallCountLeavesTheLastBlocksEmpty() {
        assertThat(DirectAllReduce.blockStart(3, 4, 4, 1)).isEqualTo(3);
        assertThat(DirectAllReduce.blockStart(20, 4, 4, 1)).isEqualTo(16);
        assertThat(DirectAllReduce.blockStart(20, 4, 4, 2)).isEqualTo(20);
    }
}
