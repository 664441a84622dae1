package io.jccl.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A segment in a shared arena of its own, so that it can be freed alone and used from any thread.
 *
 * @param segment the memory
 * @param arena   its arena; closing it frees the memory
 */
record ArenaSegment(MemorySegment segment, Arena arena) {
    /**
     * Allocates a segment in a new shared arena; when the allocation fails the arena is closed again and the
     * failure rethrown for the caller to report.
     */
    static ArenaSegment allocate(long bytes, long alignment) {
        Arena arena = Arena.ofShared();
        try {
            return new ArenaSegment(arena.allocate(bytes, alignment), arena);
        } catch (OutOfMemoryError | RuntimeException e) {
            arena.close();
            throw e;
        }
    }
}
