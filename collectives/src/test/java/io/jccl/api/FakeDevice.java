package io.jccl.api;

import io.jccl.DeviceBuffer;
import io.jccl.ErrorCode;
import io.jccl.HostStaging;
import io.jccl.JcclException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A memory domain for tests of the collectives' device path without a GPU: "device" memory is native memory
 * that holds every byte XOR {@link #SCRAMBLE}, so the only way to the data is through the copy methods (code that
 * read the address directly would see garbage). Copies can be made to fail; staging is counted.
 */
final class FakeDevice implements HostStaging, AutoCloseable {
    static final byte SCRAMBLE = (byte) 0xA5;

    private final Arena arena = Arena.ofShared();
    final AtomicInteger acquired = new AtomicInteger();
    final AtomicInteger released = new AtomicInteger();
    /** Copies to host that still succeed before they fail (negative: never fail). */
    final AtomicInteger toHostFailsAfter = new AtomicInteger(-1);
    /** Copies from host that still succeed before they fail (negative: never fail). */
    final AtomicInteger fromHostFailsAfter = new AtomicInteger(-1);

    /** A device buffer of {@code sizeBytes}, filled with scrambled zeros. */
    Memory allocate(long sizeBytes) {
        MemorySegment storage = arena.allocate(Math.max(1, sizeBytes), 64).asSlice(0, sizeBytes);
        storage.fill(SCRAMBLE);
        return new Memory(storage);
    }

    /** A device buffer holding {@code values}. */
    Memory allocateInts(int... values) {
        Memory m = allocate(4L * values.length);
        m.putInts(values);
        return m;
    }

    @Override
    public MemorySegment acquire(long sizeBytes) {
        acquired.incrementAndGet();
        return arena.allocate(sizeBytes, 64);
    }

    @Override
    public void release(MemorySegment segment) {
        released.incrementAndGet();
    }

    @Override
    public void close() {
        arena.close();
    }

    /** Fails the copy {@code direction} if {@code counter} says this one is to fail. */
    private static void failIfInjected(AtomicInteger counter, String direction) {
        if (counter.get() >= 0 && counter.getAndDecrement() == 0) {
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "fakeMemcpy(" + direction + ") failed: injected");
        }
    }

    /** Copies {@code sizeBytes} bytes, each XOR {@link #SCRAMBLE}: scrambles and unscrambles alike. */
    private static void scrambledCopy(MemorySegment from, long fromOffset, MemorySegment to, long toOffset,
                                      long sizeBytes) {
        for (long i = 0; i < sizeBytes; i++) {
            to.set(ValueLayout.JAVA_BYTE, toOffset + i,
                    (byte) (from.get(ValueLayout.JAVA_BYTE, fromOffset + i) ^ SCRAMBLE));
        }
    }

    /** A buffer of this domain's tests over a segment: its size and address are the segment's, staging is counted. */
    abstract class SegmentBuffer implements DeviceBuffer {
        final MemorySegment storage;

        SegmentBuffer(MemorySegment storage) {
            this.storage = storage;
        }

        @Override
        public long byteSize() {
            return storage.byteSize();
        }

        @Override
        public long address() {
            return storage.address();
        }

        @Override
        public HostStaging hostStaging() {
            return FakeDevice.this;
        }
    }

    /**
     * A device buffer over host memory, as the host domain makes them (copies are plain, nothing is scrambled).
     *
     * @param m the memory
     * @return the buffer
     */
    DeviceBuffer host(MemorySegment m) {
        return new SegmentBuffer(m) {
            @Override
            public String domainName() {
                return "host";
            }

            @Override
            public boolean isAlive() {
                return storage.scope().isAlive();
            }

            @Override
            public Optional<MemorySegment> hostSegment() {
                return Optional.of(storage);
            }

            @Override
            public void copyToHost(long offsetBytes, MemorySegment destination, long destinationOffsetBytes,
                                   long sizeBytes) {
                MemorySegment.copy(storage, offsetBytes, destination, destinationOffsetBytes, sizeBytes);
            }

            @Override
            public void copyFromHost(MemorySegment source, long sourceOffsetBytes, long offsetBytes, long sizeBytes) {
                MemorySegment.copy(source, sourceOffsetBytes, storage, offsetBytes, sizeBytes);
            }
        };
    }

    /** One allocation. */
    final class Memory extends SegmentBuffer {
        volatile boolean freed;

        Memory(MemorySegment storage) {
            super(storage);
        }

        @Override
        public String domainName() {
            return "fake";
        }

        @Override
        public boolean isAlive() {
            return !freed;
        }

        @Override
        public Optional<MemorySegment> hostSegment() {
            return Optional.empty();
        }

        @Override
        public void copyToHost(long offsetBytes, MemorySegment destination, long destinationOffsetBytes,
                               long sizeBytes) {
            failIfInjected(toHostFailsAfter, "DeviceToHost");
            scrambledCopy(storage, offsetBytes, destination, destinationOffsetBytes, sizeBytes);
        }

        @Override
        public void copyFromHost(MemorySegment source, long sourceOffsetBytes, long offsetBytes, long sizeBytes) {
            failIfInjected(fromHostFailsAfter, "HostToDevice");
            scrambledCopy(source, sourceOffsetBytes, storage, offsetBytes, sizeBytes);
        }

        void putInts(int... values) {
            MemorySegment h = MemorySegment.ofArray(values);
            copyFromHost(h, 0, 0, h.byteSize());
        }

        int[] ints() {
            int[] out = new int[(int) (byteSize() / 4)];
            copyToHost(0, MemorySegment.ofArray(out), 0, byteSize());
            return out;
        }
    }
}
