package io.jccl.metaroce.udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Which of a driver's sockets have datagrams waiting, in one {@code ppoll} with a zero timeout: a duty cycle then
 * reads only those, instead of one {@code recvmmsg} per socket that mostly says "nothing" (16 system calls per cycle
 * for a rank's two 8-path endpoints). Native I/O only; driving thread only; allocates nothing per call.
 */
final class ReadySockets implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment callState = arena.allocate(LinuxSyscalls.CALL_STATE);
    private final MemorySegment zeroTimeout = arena.allocate(LinuxSyscalls.TIMESPEC_BYTES, 8);
    private final MemorySegment pollfds;
    private final int capacity;

    ReadySockets(int capacity) {
        this.capacity = capacity;
        this.pollfds = arena.allocate((long) capacity * LinuxSyscalls.POLLFD_BYTES, 8);
    }

    /** @return how many descriptors one call can watch */
    int capacity() {
        return capacity;
    }

    /**
     * @param descriptors the sockets' file descriptors
     * @param count       how many of them
     * @return how many are readable (0 also when the call failed: the caller then reads every socket)
     */
    int poll(int[] descriptors, int count) {
        for (int i = 0; i < count; i++) {
            long at = (long) i * LinuxSyscalls.POLLFD_BYTES;
            pollfds.set(ValueLayout.JAVA_INT, at, descriptors[i]);
            pollfds.set(ValueLayout.JAVA_SHORT, at + 4, LinuxSyscalls.POLLIN);
            pollfds.set(ValueLayout.JAVA_SHORT, at + 6, (short) 0);
        }
        return LinuxSyscalls.ppoll(callState, pollfds.address(), count, zeroTimeout.address());
    }

    /** @return whether descriptor {@code index} of the last {@link #poll} had something to read (or an error) */
    boolean ready(int index) {
        return pollfds.get(ValueLayout.JAVA_SHORT, (long) index * LinuxSyscalls.POLLFD_BYTES + 6) != 0;
    }

    @Override
    public void close() {
        arena.close();
    }
}
