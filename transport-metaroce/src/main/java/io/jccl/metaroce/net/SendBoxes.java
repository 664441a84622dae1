package io.jccl.metaroce.net;

import io.jccl.metaroce.protocol.CompletionStatus;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A channel's fixed boxes for the control messages it sends (a sender's FINs and RTSs, a receiver's CREDITs): each
 * busy from its SEND until that SEND completes, when the owner is told which box and how it ended. Driving thread
 * only; nothing is allocated after construction.
 */
final class SendBoxes {
    /** What a box's SEND completion reports. */
    interface Sent {
        void onSent(int box, CompletionStatus status);
    }

    private final MemorySegment[] boxes;
    private final WorkOwner[] owners;
    private final int[] free;
    private int freeCount;

    /**
     * @param count    boxes
     * @param boxBytes bytes per box
     * @param arena    where they live (reachable by the driving thread)
     * @param sent     told when a box's SEND completes
     */
    SendBoxes(int count, long boxBytes, Arena arena, Sent sent) {
        boxes = new MemorySegment[count];
        owners = new WorkOwner[count];
        free = new int[count];
        for (int i = 0; i < count; i++) {
            boxes[i] = arena.allocate(boxBytes, 8);
            int box = i;
            owners[i] = (kind, status, bytes) -> sent.onSent(box, status);
            free[freeCount++] = i;
        }
    }

    /** @return how many boxes the pool has */
    int count() {
        return boxes.length;
    }

    boolean anyFree() {
        return freeCount > 0;
    }

    /** @return a free box, now busy; only when {@link #anyFree()} */
    int take() {
        return free[--freeCount];
    }

    /** Makes a box free again (its SEND completed, or it was never posted). */
    void release(int box) {
        free[freeCount++] = box;
    }

    MemorySegment box(int box) {
        return boxes[box];
    }

    /** @return the owner to post the box's SEND with: its completion reaches {@link Sent#onSent} */
    WorkOwner owner(int box) {
        return owners[box];
    }
}
