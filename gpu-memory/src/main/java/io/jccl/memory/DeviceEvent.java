package io.jccl.memory;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A marker in a {@link DeviceStream}: complete once the work queued before it is (HIP's {@code hipEvent_t}),
 * held as an opaque handle. Made by {@link MemoryDomain#recordEvent(DeviceStream)}; destroyed by {@link #close()}.
 */
public final class DeviceEvent implements AutoCloseable {
    private final MemoryDomain domain;
    private final long handle;
    private final AtomicBoolean closed = new AtomicBoolean();

    DeviceEvent(MemoryDomain domain, long handle) {
        this.domain = domain;
        this.handle = handle;
    }

    /** @return the native handle (a {@code hipEvent_t} pointer for HIP); valid until {@link #close()} */
    public long handle() {
        return handle;
    }

    boolean isOpen() {
        return !closed.get();
    }

    boolean markClosed() {
        return closed.compareAndSet(false, true);
    }

    /** Destroys the event; idempotent. */
    @Override
    public void close() {
        domain.destroy(this);
    }

    @Override
    public String toString() {
        return domain.name() + " event 0x" + Long.toHexString(handle) + (closed.get() ? " (closed)" : "");
    }
}
