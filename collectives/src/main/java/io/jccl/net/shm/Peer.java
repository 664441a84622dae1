package io.jccl.net.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Another rank's transport as this process sees it: its segment, mapped, and its process, watched through a pidfd.
 * Shared by this transport's connections to that rank (reference counted by {@link ShmTransport}).
 *
 * <p>Liveness: a pidfd refers to one process, not a pid, and becomes readable when that process exits, so a pid
 * reused by a new process never passes for the old one. Without pidfds (Linux before 5.3) the check falls back to
 * {@code kill(pid, 0)}, which cannot tell a recycled pid.
 */
final class Peer {
    final Segment segment;
    final long pid;
    private final int pidfd;
    int references;

    private Peer(Segment segment, int pidfd) {
        this.segment = segment;
        this.pid = segment.pid;
        this.pidfd = pidfd;
    }

    /** Watches the process of a mapped segment. */
    static Peer of(Segment segment) {
        try (Arena temp = Arena.ofConfined()) {
            int fd = LinuxCalls.pidfdOpen(temp.allocate(LinuxCalls.CALL_STATE), segment.pid);
            return new Peer(segment, Math.max(-1, fd));
        }
    }

    /**
     * Allocates nothing.
     *
     * @param scratch the calling thread's scratch memory
     * @return whether the process still runs
     */
    boolean isAlive(Scratch scratch) {
        if (pidfd >= 0) {
            MemorySegment p = scratch.pollFd;
            p.set(ValueLayout.JAVA_INT, 0, pidfd);
            p.set(ValueLayout.JAVA_SHORT, 4, LinuxCalls.POLLIN);
            p.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
            int n = LinuxCalls.poll(p.address(), 1, 0);
            return n <= 0;   // -1: interrupted (or worse), taken for alive; the next look decides
        }
        return LinuxCalls.kill(scratch.callState, (int) pid, 0) == 0 || scratch.errno() == LinuxCalls.EPERM;
    }

    /** Unmaps the segment and closes the pidfd. */
    void close() {
        try {
            segment.close();
        } finally {
            if (pidfd >= 0) {
                try (Arena temp = Arena.ofConfined()) {
                    LinuxCalls.close(temp.allocate(LinuxCalls.CALL_STATE), pidfd);
                }
            }
        }
    }
}
