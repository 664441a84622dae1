package io.jccl;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.Optional;

/** The view {@link DeviceBuffer#slice} returns: offsets added, ranges checked against the view, the rest delegated. */
final class DeviceBufferSlice implements DeviceBuffer {
    private final DeviceBuffer parent;
    private final long offsetBytes;
    private final long sizeBytes;

    private DeviceBufferSlice(DeviceBuffer parent, long offsetBytes, long sizeBytes) {
        this.parent = parent;
        this.offsetBytes = offsetBytes;
        this.sizeBytes = sizeBytes;
    }

    static DeviceBuffer of(DeviceBuffer parent, long offsetBytes, long sizeBytes) {
        Objects.requireNonNull(parent, "parent");
        checkRange("slice", parent.byteSize(), offsetBytes, sizeBytes);
        if (parent instanceof DeviceBufferSlice s) {
            return new DeviceBufferSlice(s.parent, s.offsetBytes + offsetBytes, sizeBytes);
        }
        return new DeviceBufferSlice(parent, offsetBytes, sizeBytes);
    }

    /** Fails unless {@code [offset, offset + size)} lies in a buffer of {@code limit} bytes. */
    static void checkRange(String what, long limit, long offsetBytes, long sizeBytes) {
        if (offsetBytes < 0 || sizeBytes < 0 || offsetBytes > limit - sizeBytes) {
            throw JcclException.invalidArgument(what + ": offset " + offsetBytes + " + size " + sizeBytes
                    + " bytes is outside a buffer of " + limit + " bytes");
        }
    }

    @Override
    public long byteSize() {
        return sizeBytes;
    }

    @Override
    public String domainName() {
        return parent.domainName();
    }

    @Override
    public long address() {
        return parent.address() + offsetBytes;
    }

    @Override
    public boolean isAlive() {
        return parent.isAlive();
    }

    @Override
    public Optional<MemorySegment> hostSegment() {
        return parent.hostSegment().map(s -> s.asSlice(offsetBytes, sizeBytes));
    }

    @Override
    public void copyToHost(long offset, MemorySegment destination, long destinationOffsetBytes, long size) {
        checkRange("copyToHost", sizeBytes, offset, size);
        parent.copyToHost(offsetBytes + offset, destination, destinationOffsetBytes, size);
    }

    @Override
    public void copyFromHost(MemorySegment source, long sourceOffsetBytes, long offset, long size) {
        checkRange("copyFromHost", sizeBytes, offset, size);
        parent.copyFromHost(source, sourceOffsetBytes, offsetBytes + offset, size);
    }

    @Override
    public HostStaging hostStaging() {
        return parent.hostStaging();
    }

    @Override
    public String toString() {
        return parent + "[" + offsetBytes + ", +" + sizeBytes + "]";
    }
}
