package io.jccl.metaroce.protocol.wire;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The kinds of Agrona buffer a packet may sit in, each wrapped with a non-zero adjustment so that index arithmetic
 * (array offset, wrap offset) is exercised.
 */
enum BufferKind {
    /** {@code UnsafeBuffer} over a {@code byte[]}, wrapped from index 7. */
    HEAP_ARRAY {
        @Override
        MutableDirectBuffer allocate(int capacity) {
            return new UnsafeBuffer(new byte[capacity + 7], 7, capacity);
        }
    },
    /** {@code UnsafeBuffer} over a heap {@code ByteBuffer} slice (array offset 5). */
    HEAP_BYTE_BUFFER {
        @Override
        MutableDirectBuffer allocate(int capacity) {
            return new UnsafeBuffer(ByteBuffer.allocate(capacity + 5).position(5).slice());
        }
    },
    /** {@code UnsafeBuffer} over a direct {@code ByteBuffer}, wrapped from index 3. */
    DIRECT_BYTE_BUFFER {
        @Override
        MutableDirectBuffer allocate(int capacity) {
            return new UnsafeBuffer(ByteBuffer.allocateDirect(capacity + 3), 3, capacity);
        }
    },
    /** {@code UnsafeBuffer} over a raw address: a {@link MemorySegment}'s, kept alive by the buffer. */
    ADDRESS {
        @Override
        MutableDirectBuffer allocate(int capacity) {
            return new SegmentBuffer(Arena.ofAuto().allocate(Math.max(1, capacity), 8), capacity);
        }
    };

    /**
     * @param capacity bytes
     * @return a zeroed buffer of that capacity
     */
    abstract MutableDirectBuffer allocate(int capacity);

    /** An address-wrapping buffer that holds its segment, so the memory lives as long as the buffer. */
    static final class SegmentBuffer extends UnsafeBuffer {
        private final MemorySegment segment;

        SegmentBuffer(MemorySegment segment, int capacity) {
            super(segment.address(), capacity);
            this.segment = segment;
        }

        MemorySegment segment() {
            return segment;
        }
    }
}
