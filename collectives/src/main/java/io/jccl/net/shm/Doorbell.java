package io.jccl.net.shm;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The futex word in a segment's header through which a rank sleeps until a peer has something for it, and peers wake
 * it. A shared futex (no {@code FUTEX_PRIVATE_FLAG}): the kernel keys it by the memory, which every process maps.
 *
 * <p>No wake-up is lost: a sleeper counts itself among the waiters (an atomic add, a full barrier) before it reads the
 * word and looks once more for work; a peer publishes its work, then issues a full fence, then reads the waiter
 * count. Of the two, at least one sees the other's write: either the peer sees the waiter and bumps the word and wakes
 * it (a sleeper that read the word before the bump returns at once from {@code FUTEX_WAIT}), or the sleeper sees the
 * work and does not sleep. While nobody sleeps, a peer pays one fence and one read of a line nobody writes.
 */
final class Doorbell {
    private static final VarHandle INT = Layouts.INT;

    private Doorbell() {
    }

    /**
     * Wakes the segment's sleepers, if any; call right after publishing what they should see.
     *
     * @param segment the sleeping rank's segment, as this process maps it
     * @param scratch the calling thread's scratch memory
     */
    static void ringIfAsleep(MemorySegment segment, Scratch scratch) {
        VarHandle.fullFence();
        if ((int) INT.getOpaque(segment, Layout.H_WAITERS) > 0) {
            ring(segment, scratch);
        }
    }

    /** Bumps the word and wakes every sleeper. */
    static void ring(MemorySegment segment, Scratch scratch) {
        INT.getAndAdd(segment, Layout.H_DOORBELL, 1);
        LinuxCalls.futexWake(segment.address() + Layout.H_DOORBELL, Integer.MAX_VALUE);
    }

    /** Counts the caller among the sleepers; a full barrier. @return the word's value to sleep on */
    static int enter(MemorySegment segment) {
        INT.getAndAdd(segment, Layout.H_WAITERS, 1);
        return (int) INT.getVolatile(segment, Layout.H_DOORBELL);
    }

    /** Sleeps while the word still holds {@code value}, at most {@code timeoutNs}; spurious returns are possible. */
    static void sleep(MemorySegment segment, int value, long timeoutNs, Scratch scratch) {
        scratch.timeout(timeoutNs);
        LinuxCalls.futexWait(segment.address() + Layout.H_DOORBELL, value, scratch.timespec.address());
    }

    /** Stops counting the caller among the sleepers. */
    static void leave(MemorySegment segment) {
        INT.getAndAdd(segment, Layout.H_WAITERS, -1);
    }
}
