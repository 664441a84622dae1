package io.jccl.net.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The registered heap of a rank's segment: memory this rank hands out ({@code Communicator.allocate}) and its local
 * peers map, so that a message sent from it is copied by the receiver straight out of its mapping, with no system
 * call. A first-fit allocator over the heap's pages; thread-safe (it is on the control path, never the data path).
 *
 * <p>Each allocation is a segment of its own arena: freeing it closes that arena, so a freed segment can no longer
 * be used (an access throws {@link IllegalStateException}) instead of reaching memory handed out again.
 */
final class RegisteredHeap {
    private final long base;
    private final long bytes;
    /** Free blocks: offset to length, coalesced. */
    private final TreeMap<Long, Long> freeBlocks = new TreeMap<>();
    /** Live allocations by address. */
    private final Map<Long, Allocation> live = new HashMap<>();
    private boolean closed;

    private record Allocation(long offset, long bytes, Arena arena, MemorySegment segment) {
    }

    /**
     * @param base  address of the heap in this process
     * @param bytes its size, a multiple of the page size
     */
    RegisteredHeap(long base, long bytes) {
        this.base = base;
        this.bytes = bytes;
        if (bytes > 0) {
            freeBlocks.put(0L, bytes);
        }
    }

    /** @return the heap's size in bytes */
    long bytes() {
        return bytes;
    }

    /**
     * @param size bytes wanted, at least 1
     * @return zeroed, page-aligned memory, or null when no free block is large enough
     */
    @SuppressWarnings("restricted") // the heap lies in this transport's own mapping, live until close()
    synchronized MemorySegment allocate(long size) {
        if (closed) {
            throw new IllegalStateException("the shm transport is closed");
        }
        long rounded = (size + Layout.PAGE - 1) / Layout.PAGE * Layout.PAGE;
        for (Map.Entry<Long, Long> block : freeBlocks.entrySet()) {
            if (block.getValue() >= rounded) {
                long offset = block.getKey();
                freeBlocks.remove(offset);
                if (block.getValue() > rounded) {
                    freeBlocks.put(offset + rounded, block.getValue() - rounded);
                }
                Arena arena = Arena.ofShared();
                MemorySegment segment = MemorySegment.ofAddress(base + offset).reinterpret(size, arena, null);
                segment.fill((byte) 0);
                live.put(segment.address(), new Allocation(offset, rounded, arena, segment));
                return segment;
            }
        }
        return null;
    }

    /**
     * @param segment what {@link #allocate} returned
     * @return whether it was a live allocation of this heap (now freed)
     */
    synchronized boolean free(MemorySegment segment) {
        Allocation a = live.get(segment.address());
        if (a == null || !segment.isNative() || segment.byteSize() != a.segment().byteSize()) {
            return false;
        }
        live.remove(segment.address());
        a.arena().close();
        release(a.offset(), a.bytes());
        return true;
    }

    private void release(long offset, long size) {
        long start = offset;
        long length = size;
        Map.Entry<Long, Long> before = freeBlocks.floorEntry(offset);
        if (before != null && before.getKey() + before.getValue() == offset) {
            start = before.getKey();
            length += before.getValue();
            freeBlocks.remove(before.getKey());
        }
        Long after = freeBlocks.containsKey(offset + size) ? freeBlocks.remove(offset + size) : null;
        if (after != null) {
            length += after;
        }
        freeBlocks.put(start, length);
    }

    /** @return whether {@code [address, address + size)} lies in the heap */
    boolean contains(long address, long size) {
        return address >= base && size >= 0 && address - base <= bytes - size;
    }

    /**
     * Invalidates every live allocation; the heap hands out nothing more.
     *
     * @return false when an allocation could not be invalidated (a thread still uses it): the memory must then stay
     *         mapped
     */
    synchronized boolean close() {
        closed = true;
        boolean all = true;
        List<Allocation> remaining = new ArrayList<>(live.values());
        live.clear();
        for (Allocation a : remaining) {
            try {
                a.arena().close();
            } catch (IllegalStateException e) {
                all = false;
            }
        }
        return all;
    }
}
