package io.jccl.metaroce.udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Which of a driver's path sockets have something to read, in one system call: {@code ppoll} with a zero timeout.
 * A driver that heard nothing in its last round asks this first and reads only the ready sockets, instead of one
 * {@code recvmmsg} per path (8 per endpoint by default) that mostly return nothing; a round that received keeps
 * reading every socket, so a busy transfer pays no extra call. Native I/O only ({@link #open} says null otherwise).
 * One thread at a time (the driver's).
 */
final class ReadySockets {
    /** Freed with the poller: a driver closed while another thread still polls must not find it unmapped. */
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment pollfds;
    private final MemorySegment zeroTimeout;
    private final MemorySegment state;
    private final int capacity;

    private ReadySockets(int capacity) {
        this.capacity = capacity;
        this.pollfds = arena.allocate((long) capacity * LinuxSyscalls.POLLFD_BYTES, 8);
        this.zeroTimeout = arena.allocate(LinuxSyscalls.TIMESPEC_BYTES, 8);   // zeroed: do not wait
        this.state = arena.allocate(LinuxSyscalls.CALL_STATE);
    }

    /** @return a poller for up to {@code sockets} sockets, or null when one of them has no descriptor */
    static ReadySockets open(DatagramIo[] sockets) {
        for (DatagramIo s : sockets) {
            if (s.descriptor() < 0) {
                return null;
            }
        }
        return new ReadySockets(sockets.length);
    }

    /**
     * Asks the kernel which sockets are readable (or have an error to report), without waiting. The descriptors are
     * read afresh each time: a socket may have been replaced since.
     *
     * @param sockets the driver's path sockets, at most the capacity this poller was opened for
     * @return how many are ready, or -1 when the call failed or a socket has no descriptor (read them all then)
     */
    int poll(DatagramIo[] sockets) {
        int n = Math.min(sockets.length, capacity);
        for (int i = 0; i < n; i++) {
            int fd = sockets[i].descriptor();
            if (fd < 0) {
                return -1;
            }
            long at = (long) i * LinuxSyscalls.POLLFD_BYTES;
            pollfds.set(ValueLayout.JAVA_INT, at, fd);
            pollfds.set(ValueLayout.JAVA_SHORT, at + 4, LinuxSyscalls.POLLIN);
            pollfds.set(ValueLayout.JAVA_SHORT, at + 6, (short) 0);
        }
        return LinuxSyscalls.ppoll(state, pollfds.address(), n, zeroTimeout.address());
    }

    /** @return whether socket {@code index} had anything to report in the last {@link #poll} (data or an error) */
    boolean ready(int index) {
        return pollfds.get(ValueLayout.JAVA_SHORT, (long) index * LinuxSyscalls.POLLFD_BYTES + 6) != 0;
    }
}
