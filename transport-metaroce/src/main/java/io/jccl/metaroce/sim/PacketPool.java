package io.jccl.metaroce.sim;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

/**
 * Packets in flight: a handle (an int) names a fixed-size slot in a slab of heap memory plus the packet's metadata
 * in primitive arrays. Slabs and metadata only grow (while the simulation warms up), so a packet costs no
 * allocation in steady state. Handles are recycled through a free stack, so which handle a packet gets depends only
 * on the order of earlier allocations and releases (deterministic).
 */
final class PacketPool {
    /** Slots per slab: 2^SLAB_SHIFT. */
    private static final int SLAB_SHIFT = 6;
    private static final int SLAB_MASK = (1 << SLAB_SHIFT) - 1;

    /** Flag: the packet carries the ECN CE mark. */
    static final int FLAG_ECN = 1;

    private final int slotBytes;
    private UnsafeBuffer[] slabs = new UnsafeBuffer[0];
    private int[] free = new int[0];
    private int freeCount;
    private int capacity;
    private int inUse;

    int[] length = new int[0];
    int[] sourceNode = new int[0];
    int[] destinationNode = new int[0];
    int[] pathIndex = new int[0];
    int[] routeLink = new int[0];
    int[] flags = new int[0];

    /**
     * @param slotBytes      the largest datagram a slot holds
     * @param initialPackets slots to create up front
     */
    PacketPool(int slotBytes, int initialPackets) {
        this.slotBytes = slotBytes;
        while (capacity < initialPackets) {
            grow();
        }
    }

    int slotBytes() {
        return slotBytes;
    }

    /** @return packets currently allocated */
    int inUse() {
        return inUse;
    }

    /** @return slots created so far */
    int capacity() {
        return capacity;
    }

    /** @return a free handle (growing the pool when none is free) */
    int allocate() {
        if (freeCount == 0) {
            grow();
        }
        inUse++;
        int h = free[--freeCount];
        flags[h] = 0;
        return h;
    }

    void release(int handle) {
        inUse--;
        free[freeCount++] = handle;
    }

    UnsafeBuffer buffer(int handle) {
        return slabs[handle >>> SLAB_SHIFT];
    }

    int offset(int handle) {
        return (handle & SLAB_MASK) * slotBytes;
    }

    /** Copies a datagram into a slot. */
    void copyIn(int handle, DirectBuffer src, int srcOffset, int len) {
        src.getBytes(srcOffset, buffer(handle), offset(handle), len);
        length[handle] = len;
    }

    /** @return a new handle holding a copy of {@code handle}'s bytes and metadata */
    int duplicate(int handle) {
        int copy = allocate();
        int len = length[handle];
        buffer(copy).putBytes(offset(copy), buffer(handle), offset(handle), len);
        length[copy] = len;
        sourceNode[copy] = sourceNode[handle];
        destinationNode[copy] = destinationNode[handle];
        pathIndex[copy] = pathIndex[handle];
        routeLink[copy] = routeLink[handle];
        flags[copy] = flags[handle];
        return copy;
    }

    private void grow() {
        int slabsNow = slabs.length;
        slabs = Arrays.copyOf(slabs, slabsNow + 1);
        slabs[slabsNow] = new UnsafeBuffer(new byte[slotBytes << SLAB_SHIFT]);
        int newCapacity = capacity + (1 << SLAB_SHIFT);
        length = Arrays.copyOf(length, newCapacity);
        sourceNode = Arrays.copyOf(sourceNode, newCapacity);
        destinationNode = Arrays.copyOf(destinationNode, newCapacity);
        pathIndex = Arrays.copyOf(pathIndex, newCapacity);
        routeLink = Arrays.copyOf(routeLink, newCapacity);
        flags = Arrays.copyOf(flags, newCapacity);
        free = Arrays.copyOf(free, newCapacity);
        // Push the new handles so that the lowest comes out first.
        for (int h = newCapacity - 1; h >= capacity; h--) {
            free[freeCount++] = h;
        }
        capacity = newCapacity;
    }
}
