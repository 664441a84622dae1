package io.jccl.net.local;

import io.jccl.net.ProgressSignal;

/**
 * One direction between two ranks: a ring of slots plus each side's retire watermark. The sender and the
 * receiver each use it from one thread.
 */
final class LocalChannel {
    final LocalSlot[] slots;
    final int mask;
    final ProgressSignal senderSignal;
    volatile ProgressSignal receiverSignal;
    volatile boolean senderClosed;
    volatile boolean receiverClosed;

    LocalChannel(int capacity, ProgressSignal senderSignal, ProgressSignal receiverSignal) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two, got " + capacity);
        }
        this.slots = new LocalSlot[capacity];
        for (int i = 0; i < capacity; i++) {
            slots[i] = new LocalSlot(i);
        }
        this.mask = capacity - 1;
        this.senderSignal = senderSignal;
        this.receiverSignal = receiverSignal;
    }

    LocalSlot slot(long seq) {
        return slots[(int) (seq & mask)];
    }
}
