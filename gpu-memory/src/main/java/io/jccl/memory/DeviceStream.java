package io.jccl.memory;

/**
 * An ordered queue of asynchronous work on a domain's device (HIP's {@code hipStream_t}, CUDA's
 * {@code cudaStream_t}), held as an opaque handle. Made by {@link MemoryDomain#createStream()}; {@link #close()}
 * finishes its work and destroys it. For the host domain, work on a stream runs at once.
 */
public final class DeviceStream extends DeviceHandle {
    DeviceStream(MemoryDomain domain, long handle) {
        super(domain, handle, "stream");
    }

    /** @return the domain it belongs to */
    public MemoryDomain domain() {
        return domain;
    }

    /** Destroys the stream (after its queued work); idempotent. */
    @Override
    public void close() {
        domain.destroy(this);
    }
}
