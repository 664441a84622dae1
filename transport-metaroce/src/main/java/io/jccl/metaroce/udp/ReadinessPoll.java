package io.jccl.metaroce.udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Which sockets of one or several drivers have something to read, in one system call ({@code ppoll}, zero timeout),
 * so a duty cycle reads only those. A driver on its own asks after a round that received nothing
 * ({@link UdpDriver#doWork()}); the collectives transport, which runs two endpoints of 8 path sockets each, asks every
 * round over both ({@link UdpDriver#doWork(ReadinessPoll)}): reading all 16 after every round that received something
 * cost a small message about 30 {@code recvmmsg} calls that found nothing, and asking each driver's sockets apart two
 * {@code ppoll}s per waiting round — on these hosts each call costs about a microsecond, which made most of an 8-byte
 * exchange's time. Native I/O only ({@link #open} says null otherwise). One thread at a time (the driving one); the
 * descriptor list is rebuilt when a driver's sockets change (a re-route).
 */
public final class ReadinessPoll {
    /** Freed with the poll: a transport closed while another thread still polls must not find it unmapped. */
    private final Arena arena = Arena.ofAuto();
    private final UdpDriver[] drivers;
    private final int[] firstIndex;
    private final long[] socketsVersion;
    private final MemorySegment zeroTimeout;
    private final MemorySegment state;
    private MemorySegment pollfds;
    private int[] descriptors = new int[32];
    private int count;
    /** Whether the descriptors were all known at the last rebuild. */
    private boolean usable;
    /** Whether the last {@link #poll()} answered: false means read every socket. */
    private boolean known;

    private ReadinessPoll(List<UdpDriver> drivers) {
        this.drivers = drivers.toArray(UdpDriver[]::new);
        this.firstIndex = new int[this.drivers.length];
        this.socketsVersion = new long[this.drivers.length];
        java.util.Arrays.fill(socketsVersion, -1);
        this.zeroTimeout = arena.allocate(LinuxSyscalls.TIMESPEC_BYTES, 8);   // zeroed: do not wait
        this.state = arena.allocate(LinuxSyscalls.CALL_STATE);
        this.pollfds = arena.allocate((long) descriptors.length * LinuxSyscalls.POLLFD_BYTES, 8);
    }

    /**
     * @param drivers the drivers whose sockets one poll covers, each then driven with {@link UdpDriver#doWork(
     *                ReadinessPoll)}
     * @return a poll, or null when a driver does not use native I/O
     */
    public static ReadinessPoll open(List<UdpDriver> drivers) {
        for (UdpDriver d : drivers) {
            if (d.ioMethod() != IoMethod.NATIVE) {
                return null;
            }
        }
        return new ReadinessPoll(drivers);
    }

    /**
     * Asks the kernel which sockets are readable (or have an error to report), without waiting.
     *
     * @return how many are ready, or -1 when the answer is not known (read every socket then)
     */
    public int poll() {
        if (!descriptorsCurrent()) {
            usable = rebuild();
        }
        if (!usable) {
            known = false;
            return -1;
        }
        for (int i = 0; i < count; i++) {
            pollfds.set(ValueLayout.JAVA_SHORT, (long) i * LinuxSyscalls.POLLFD_BYTES + 6, (short) 0);
        }
        int ready = LinuxSyscalls.ppoll(state, pollfds.address(), count, zeroTimeout.address());
        known = ready >= 0;
        return known ? ready : -1;
    }

    /**
     * @param driver the driver asking
     * @param socket its socket's index in {@link UdpDriver#descriptors} order (path sockets, then re-routed ones)
     * @return whether to read that socket: it was ready at the last {@link #poll()}, or the poll did not answer
     */
    boolean ready(UdpDriver driver, int socket) {
        if (!known) {
            return true;
        }
        for (int d = 0; d < drivers.length; d++) {
            if (drivers[d] == driver) {
                int end = d + 1 < drivers.length ? firstIndex[d + 1] : count;
                if (firstIndex[d] + socket >= end) {
                    return true;   // a socket added since the poll: read it
                }
                long at = (long) (firstIndex[d] + socket) * LinuxSyscalls.POLLFD_BYTES + 6;
                return pollfds.get(ValueLayout.JAVA_SHORT, at) != 0;
            }
        }
        return true;   // not one of ours: read it
    }

    private boolean descriptorsCurrent() {
        for (int d = 0; d < drivers.length; d++) {
            if (drivers[d].socketsVersion() != socketsVersion[d]) {
                return false;
            }
        }
        return true;
    }

    /** @return whether every socket has a descriptor (else the drivers read them all until their sockets change) */
    private boolean rebuild() {
        int total = 0;
        for (UdpDriver d : drivers) {
            total += d.socketCount();
        }
        if (total > descriptors.length) {
            descriptors = new int[Math.max(total, descriptors.length * 2)];
        }
        if ((long) descriptors.length * LinuxSyscalls.POLLFD_BYTES > pollfds.byteSize()) {
            pollfds = arena.allocate((long) descriptors.length * LinuxSyscalls.POLLFD_BYTES, 8);
        }
        int n = 0;
        for (int d = 0; d < drivers.length; d++) {
            socketsVersion[d] = drivers[d].socketsVersion();
            firstIndex[d] = n;
            n = drivers[d].descriptors(descriptors, n);
            if (n < 0) {
                return false;
            }
        }
        for (int i = 0; i < n; i++) {
            long at = (long) i * LinuxSyscalls.POLLFD_BYTES;
            pollfds.set(ValueLayout.JAVA_INT, at, descriptors[i]);
            pollfds.set(ValueLayout.JAVA_SHORT, at + 4, LinuxSyscalls.POLLIN);
            pollfds.set(ValueLayout.JAVA_SHORT, at + 6, (short) 0);
        }
        count = n;
        return true;
    }
}
