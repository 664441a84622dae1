package io.jccl.memory;

import io.jccl.DeviceBuffer;
import io.jccl.HostStaging;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * One allocation of a {@link MemoryDomain}, usable as a {@link DeviceBuffer} by every communicator operation.
 * Made by {@link MemoryDomain#allocate}; freed by {@link MemoryDomain#free} or {@link #close()} (once; later uses
 * fail with INVALID_USAGE instead of touching freed memory).
 */
public final class DeviceMemory extends ReleasedOnce implements DeviceBuffer, AutoCloseable {
    private final MemoryDomain domain;
    private final long address;
    private final long baseAddress;
    private final long sizeBytes;
    private final MemorySegment hostView;

    /**
     * @param baseAddress what the domain's free call takes (differs from {@code address} when the domain had to
     *                    over-allocate for a larger alignment)
     */
    DeviceMemory(MemoryDomain domain, long address, long baseAddress, long sizeBytes, MemorySegment hostView) {
        this.domain = domain;
        this.address = address;
        this.baseAddress = baseAddress;
        this.sizeBytes = sizeBytes;
        this.hostView = hostView;
    }

    /** @return the domain that allocated this memory */
    public MemoryDomain domain() {
        return domain;
    }

    /** @return the device index of the domain */
    public int device() {
        return domain.device();
    }

    @Override
    public long byteSize() {
        return sizeBytes;
    }

    @Override
    public String domainName() {
        return domain.name();
    }

    @Override
    public long address() {
        return address;
    }

    long baseAddress() {
        return baseAddress;
    }

    @Override
    public boolean isAlive() {
        return !isReleased() && !domain.isClosed();
    }

    @Override
    public Optional<MemorySegment> hostSegment() {
        return Optional.ofNullable(hostView);
    }

    @Override
    public void copyToHost(long offsetBytes, MemorySegment destination, long destinationOffsetBytes, long sizeBytes) {
        domain.copyDeviceToHost(this, offsetBytes, destination, destinationOffsetBytes, sizeBytes);
    }

    @Override
    public void copyFromHost(MemorySegment source, long sourceOffsetBytes, long offsetBytes, long sizeBytes) {
        domain.copyHostToDevice(source, sourceOffsetBytes, this, offsetBytes, sizeBytes);
    }

    @Override
    public HostStaging hostStaging() {
        return domain.stagingPool();
    }

    /** Frees the memory ({@link MemoryDomain#free}); a second close, or one after the domain closed, does nothing. */
    @Override
    public void close() {
        domain.freeIfAlive(this);
    }

    @Override
    public String toString() {
        return domain.name() + ":" + domain.device() + " memory at 0x" + Long.toHexString(address) + " (" + sizeBytes
                + " bytes" + (isReleased() ? ", freed" : "") + ")";
    }
}
