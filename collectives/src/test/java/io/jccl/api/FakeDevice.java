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

    private static boolean shouldFail(AtomicInteger counter) {
        return counter.get() >= 0 && counter.getAndDecrement() == 0;
    }

    /** One allocation. */
    final class Memory implements DeviceBuffer {
        private final MemorySegment storage;
        volatile boolean freed;

        Memory(MemorySegment storage) {
            this.storage = storage;
        }

        @Override
        public long byteSize() {
            return storage.byteSize();
        }

        @Override
        public String domainName() {
            return "fake";
        }

        @Override
        public long address() {
            return storage.address();
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
            if (shouldFail(toHostFailsAfter)) {
                throw new JcclException(ErrorCode.SYSTEM_ERROR, "fakeMemcpy(DeviceToHost) failed: injected");
            }
            for (long i = 0; i < sizeBytes; i++) {
                destination.set(ValueLayout.JAVA_BYTE, destinationOffsetBytes + i,
                        (byte) (storage.get(ValueLayout.JAVA_BYTE, offsetBytes + i) ^ SCRAMBLE));
            }
        }

        @Override
        public void copyFromHost(MemorySegment source, long sourceOffsetBytes, long offsetBytes, long sizeBytes) {
            if (shouldFail(fromHostFailsAfter)) {
                throw new JcclException(ErrorCode.SYSTEM_ERROR, "fakeMemcpy(HostToDevice) failed: injected");
            }
            for (long i = 0; i < sizeBytes; i++) {
                storage.set(ValueLayout.JAVA_BYTE, offsetBytes + i,
                        (byte) (source.get(ValueLayout.JAVA_BYTE, sourceOffsetBytes + i) ^ SCRAMBLE));
            }
        }

        @Override
        public HostStaging hostStaging() {
            return FakeDevice.this;
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
