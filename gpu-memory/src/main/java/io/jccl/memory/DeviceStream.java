package io.jccl.memory;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An ordered queue of asynchronous work on a domain's device (HIP's {@code hipStream_t}, CUDA's
 * {@code cudaStream_t}), held as an opaque handle. Made by {@link MemoryDomain#createStream()}; {@link #close()}
 * finishes its work and destroys it. For the host domain, work on a stream runs at once.
 */
public final class DeviceStream implements AutoCloseable {
    private final MemoryDomain domain;
    private final long handle;
    private final AtomicBoolean closed = new AtomicBoolean();

    DeviceStream(MemoryDomain domain, long handle) {
        this.domain = domain;
        this.handle = handle;
    }

    /** @return the native handle (a {@code hipStream_t} pointer for HIP); valid until {@link #close()} */
    public long handle() {
        return handle;
    }

    /** @return the domain it belongs to */
    public MemoryDomain domain() {
        return domain;
    }

    boolean isOpen() {
        return !closed.get();
    }

    boolean markClosed() {
        return closed.compareAndSet(false, true);
    }

    /** Destroys the stream (after its queued work); idempotent. */
    @Override
    public void close() {
        domain.destroy(this);
    }

    @Override
    public String toString() {
        return domain.name() + " stream 0x" + Long.toHexString(handle) + (closed.get() ? " (closed)" : "");
    }
}
