package io.jccl.memory;

/**
 * A marker in a {@link DeviceStream}: complete once the work queued before it is (HIP's {@code hipEvent_t}),
 * held as an opaque handle. Made by {@link MemoryDomain#recordEvent(DeviceStream)}; destroyed by {@link #close()}.
 */
public final class DeviceEvent extends DeviceHandle {
    DeviceEvent(MemoryDomain domain, long handle) {
        super(domain, handle, "event");
    }

    /** Destroys the event; idempotent. */
    @Override
    public void close() {
        domain.destroy(this);
    }
}
