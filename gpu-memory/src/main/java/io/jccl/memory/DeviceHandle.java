package io.jccl.memory;


/**
 * What a {@link DeviceStream} and a {@link DeviceEvent} share: the domain that made them, their opaque native handle,
 * and being destroyed once however often {@code close()} is called.
 */
abstract sealed class DeviceHandle extends ReleasedOnce implements AutoCloseable permits DeviceEvent, DeviceStream {
    final MemoryDomain domain;
    private final long handle;
    /** What it is, for {@link #toString()}: "stream" or "event". */
    private final String kind;

    DeviceHandle(MemoryDomain domain, long handle, String kind) {
        this.domain = domain;
        this.handle = handle;
        this.kind = kind;
    }

    /**
     * @return the native handle (for HIP a {@code hipStream_t} or {@code hipEvent_t} pointer); valid until
     *         {@code close()}
     */
    public final long handle() {
        return handle;
    }

    final boolean isOpen() {
        return !isReleased();
    }

    @Override
    public final String toString() {
        return domain.name() + " " + kind + " 0x" + Long.toHexString(handle) + (isReleased() ? " (closed)" : "");
    }
}
