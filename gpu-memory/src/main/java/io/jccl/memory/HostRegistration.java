package io.jccl.memory;

import io.jccl.net.MemoryRegistration;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Host memory a domain has pinned for device DMA ({@link MemoryDomain#register}), handed to a transport as its
 * {@link MemoryRegistration}. {@link #close()} unpins it; the memory itself stays the caller's.
 */
public final class HostRegistration implements MemoryRegistration, AutoCloseable {
    private final MemoryDomain domain;
    private final MemorySegment segment;
    private final AtomicBoolean closed = new AtomicBoolean();

    HostRegistration(MemoryDomain domain, MemorySegment segment) {
        this.domain = domain;
        this.segment = segment;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    /** @return the domain that pinned it */
    public MemoryDomain domain() {
        return domain;
    }

    /** @return whether it is still pinned */
    public boolean isRegistered() {
        return !closed.get();
    }

    boolean markClosed() {
        return closed.compareAndSet(false, true);
    }

    /** Unpins the memory; idempotent. */
    @Override
    public void close() {
        domain.deregister(this);
    }
}
