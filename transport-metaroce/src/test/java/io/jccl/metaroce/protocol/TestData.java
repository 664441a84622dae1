package io.jccl.metaroce.protocol;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Patterned bytes for the protocol tests: every byte depends on its offset and a seed, so a misplaced one shows. */
final class TestData {
    private TestData() {
    }

    /** Fills {@code s} with byte {@code i * 31 + seed} at offset {@code i}; @return s */
    static MemorySegment pattern(MemorySegment s, int seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
        return s;
    }

    /** @return {@code size} patterned bytes from {@code arena} */
    static MemorySegment pattern(Arena arena, int size, int seed) {
        return pattern(arena.allocate(size), seed);
    }
}
