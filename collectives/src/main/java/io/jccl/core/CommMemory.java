package io.jccl.core;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.net.NetException;
import io.jccl.net.NetTransport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The memory a communicator hands out ({@link io.jccl.Communicator#allocate}): from the first of its transports
 * that has memory of its own ({@link NetTransport#allocateMemory}, the {@code shm} transport's registered memory),
 * else ordinary native memory, one shared arena per allocation so that freeing it invalidates the segment. Thread-safe;
 * the control path only.
 */
final class CommMemory {
    private static final long ALIGNMENT = 4096;

    private final List<NetTransport> transports;
    private final int rank;
    /** Transport memory by address, and which transport gave it. */
    private final Map<Long, NetTransport> fromTransports = new HashMap<>();
    /** Ordinary memory by address. */
    private final Map<Long, Arena> ordinary = new HashMap<>();
    private boolean closed;

    /**
     * @param transports the communicator's transports (empty where it owns none)
     * @param rank       its rank, for messages
     */
    CommMemory(List<NetTransport> transports, int rank) {
        this.transports = List.copyOf(transports);
        this.rank = rank;
    }

    synchronized MemorySegment allocate(long bytes) {
        if (bytes < 1) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "allocate: bytes must be at least 1, not " + bytes);
        }
        if (closed) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "the communicator (rank " + rank + ") is closed");
        }
        for (NetTransport t : transports) {
            MemorySegment segment;
            try {
                segment = t.allocateMemory(bytes);
            } catch (NetException | IllegalStateException e) {
                throw new JcclException(ErrorCode.SYSTEM_ERROR, "allocate(" + bytes + ") on rank " + rank + ": "
                        + e.getMessage(), e);
            }
            if (segment != null) {
                fromTransports.put(segment.address(), t);
                return segment;
            }
        }
        Arena arena = Arena.ofShared();
        MemorySegment segment;
        try {
            segment = arena.allocate(bytes, ALIGNMENT);
        } catch (OutOfMemoryError | IllegalArgumentException e) {
            arena.close();
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "allocate(" + bytes + ") on rank " + rank + ": " + e, e);
        }
        ordinary.put(segment.address(), arena);
        return segment;
    }

    synchronized void free(MemorySegment segment) {
        if (segment == null) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "free: the segment is null");
        }
        if (closed) {
            return;
        }
        long address = segment.address();
        NetTransport t = fromTransports.get(address);
        if (t != null && t.freeMemory(segment)) {
            fromTransports.remove(address);
            return;
        }
        Arena arena = ordinary.get(address);
        if (arena != null && segment.scope().equals(arena.scope())) {
            ordinary.remove(address);
            arena.close();
            return;
        }
        throw new JcclException(ErrorCode.INVALID_ARGUMENT, "free: the segment (address 0x" + Long.toHexString(address)
                + ", " + segment.byteSize() + " bytes) is not memory this communicator allocated, or it was freed"
                + " already");
    }

    /** Frees the ordinary memory; the transports' memory goes with the transports. */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Arena arena : new ArrayList<>(ordinary.values())) {
            try {
                arena.close();
            } catch (IllegalStateException ignored) {
                // still in use by a thread: the garbage collector cannot free a shared arena, but nothing breaks
            }
        }
        ordinary.clear();
        fromTransports.clear();
    }
}
