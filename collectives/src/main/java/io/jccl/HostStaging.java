package io.jccl;

import java.lang.foreign.MemorySegment;

/**
 * Host memory that a communicator stages {@link DeviceBuffer}s through: page-locked ("pinned") where the buffer's
 * memory domain can pin, so that device copies run at full speed. Implementations keep a bounded set of
 * segments and hand them out again, so that a communicator allocates nothing per operation once warm.
 *
 * <p>Thread-safe: the executors of several communicators (in-JVM ranks) acquire and release concurrently.
 */
public interface HostStaging {
    /**
     * Takes a segment of at least {@code sizeBytes} for the caller's exclusive use until {@link #release}. Never
     * waits for another caller's release: when the bound is reached the segment is allocated beyond it and freed
     * again on release.
     *
     * @param sizeBytes the least size needed, at least 1
     * @return native memory, 64-byte aligned, accessible from every thread, possibly larger than asked
     * @throws JcclException INVALID_ARGUMENT for a size below 1; SYSTEM_ERROR when memory cannot be allocated or
     *                       pinned; INVALID_USAGE after the staging memory was closed
     */
    MemorySegment acquire(long sizeBytes);

    /**
     * Gives back a segment that {@link #acquire} returned (the segment itself, not a slice of it).
     *
     * @param segment the segment
     * @throws JcclException INVALID_ARGUMENT for a segment this staging memory did not hand out, or one already
     *                       released
     */
    void release(MemorySegment segment);
}
