package io.jccl.cli.bench.loss;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

/** The transfer's bytes: reproducible from the seed, and every wrong byte found, also in an odd-sized tail. */
class BytePatternTest {
    @Test
    void aFilledBufferChecksCleanAndEveryFlippedByteIsFound() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(1003);
            BytePattern.fill(m, 7);
            assertThat(BytePattern.check(m, 7)).containsExactly(0, -1);
            assertThat(BytePattern.check(m, 8)[0]).as("another seed, other bytes").isGreaterThan(900);
            m.set(ValueLayout.JAVA_BYTE, 17, (byte) ~m.get(ValueLayout.JAVA_BYTE, 17));
            m.set(ValueLayout.JAVA_BYTE, 1001, (byte) ~m.get(ValueLayout.JAVA_BYTE, 1001));
            assertThat(BytePattern.check(m, 7)).containsExactly(2, 17);
        }
    }

    @Test
    void aMessageAtTheWrongOffsetIsWrong() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(4096);
            BytePattern.fill(m, 1);
            MemorySegment shifted = arena.allocate(4096);
            BytePattern.fill(shifted, 1);
            shifted.asSlice(2048, 1024).copyFrom(m.asSlice(0, 1024));   // message 0 delivered again as message 2
            assertThat(BytePattern.check(shifted, 1)[1]).isEqualTo(2048);
        }
    }
}
