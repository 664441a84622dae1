package io.jccl.net.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Native memory one thread uses for its system calls on a connection or a wait: the captured {@code errno}, two
 * {@code iovec}s, a {@code pollfd} and a {@code timespec}. Allocated once, so the calls allocate nothing.
 */
final class Scratch {
    final MemorySegment callState;
    final MemorySegment localIov;
    final MemorySegment remoteIov;
    final MemorySegment pollFd;
    final MemorySegment timespec;

    Scratch(Arena arena) {
        callState = arena.allocate(LinuxCalls.CALL_STATE);
        localIov = arena.allocate(LinuxCalls.IOVEC_BYTES, 8);
        remoteIov = arena.allocate(LinuxCalls.IOVEC_BYTES, 8);
        pollFd = arena.allocate(LinuxCalls.POLLFD_BYTES, 8);
        timespec = arena.allocate(LinuxCalls.TIMESPEC_BYTES, 8);
    }

    /** @return the errno of the last call made through this scratch */
    int errno() {
        return LinuxCalls.errno(callState);
    }

    /** Fills the {@code timespec} with a relative timeout. */
    void timeout(long nanos) {
        timespec.set(ValueLayout.JAVA_LONG, 0, nanos / 1_000_000_000L);
        timespec.set(ValueLayout.JAVA_LONG, 8, nanos % 1_000_000_000L);
    }
}
