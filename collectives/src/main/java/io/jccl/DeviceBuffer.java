package io.jccl;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * Memory of a memory domain (a GPU's, or the host's) that collectives and send/receive accept as a {@link Buffer},
 * as they accept host memory. The collectives module knows nothing about GPUs: a domain (module
 * {@code jccl-gpu-memory}, package {@code io.jccl.memory}) implements this interface, and the communicator only
 * asks it for its size, its address and copies to and from host memory.
 *
 * <p>Memory that host code can address ({@link #hostSegment()} present: host memory, unified memory) is used
 * directly. Any other buffer is <em>staged</em>: when the operation starts, on the communicator's thread, its
 * input is copied into host memory from {@link #hostStaging()}; the operation runs on that host memory; its output
 * is copied back into the buffer before the operation's future completes. Staging on the communicator's thread
 * keeps the issue order that host buffers have: an operation that reads a buffer sees what earlier operations of
 * the same communicator wrote into it, even when they were still queued at the time of the call.
 *
 * <p>Addresses: {@link #address()} is where the buffer starts in the process's virtual address space (a device
 * pointer for GPU memory). The communicator compares addresses only to tell in-place calls and overlapping
 * buffers apart, as it does for segments; it never reads or writes through them.
 *
 * <p>Implementations must be safe to use from any thread.
 */
public non-sealed interface DeviceBuffer extends Buffer {
    /** @return the size in bytes */
    @Override
    long byteSize();

    /** @return the name of the memory domain the buffer belongs to (e.g. {@code host}, {@code hip}, {@code cuda}) */
    String domainName();

    /** @return the start address in the process's virtual address space (0 only for an empty buffer) */
    long address();

    /** @return whether the buffer can still be used (not freed, its domain not closed) */
    boolean isAlive();

    /**
     * @return a segment over the same memory when host code can address it directly (host or unified memory),
     *         of {@link #byteSize()} bytes; empty for device-only memory
     */
    Optional<MemorySegment> hostSegment();

    /**
     * Copies {@code sizeBytes} from this buffer at {@code offsetBytes} into host memory; returns when the copy is
     * complete.
     *
     * @param offsetBytes            where to start reading in this buffer
     * @param destination            host memory
     * @param destinationOffsetBytes where to start writing in {@code destination}
     * @param sizeBytes              how many bytes
     * @throws JcclException INVALID_ARGUMENT for ranges outside either buffer, INVALID_USAGE for a freed buffer,
     *                       SYSTEM_ERROR (naming the domain and the failed call) when the device copy fails
     */
    void copyToHost(long offsetBytes, MemorySegment destination, long destinationOffsetBytes, long sizeBytes);

    /**
     * Copies {@code sizeBytes} of host memory into this buffer at {@code offsetBytes}; returns when the copy is
     * complete.
     *
     * @param source            host memory
     * @param sourceOffsetBytes where to start reading in {@code source}
     * @param offsetBytes       where to start writing in this buffer
     * @param sizeBytes         how many bytes
     * @throws JcclException as {@link #copyToHost}
     */
    void copyFromHost(MemorySegment source, long sourceOffsetBytes, long offsetBytes, long sizeBytes);

    /** @return where communicators take host memory to stage this buffer through */
    HostStaging hostStaging();

    /**
     * A view of part of this buffer (for example the block an in-place all-gather sends: {@code
     * recv.slice(rank * blockBytes, blockBytes)}). The view shares the memory, the domain and the staging.
     *
     * @param offsetBytes where the view starts
     * @param sizeBytes   its size
     * @return the view
     * @throws JcclException INVALID_ARGUMENT when the range is not inside this buffer
     */
    @Override
    default DeviceBuffer slice(long offsetBytes, long sizeBytes) {
        return DeviceBufferSlice.of(this, offsetBytes, sizeBytes);
    }
}
