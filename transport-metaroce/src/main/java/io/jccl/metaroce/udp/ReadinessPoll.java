package io.jccl.metaroce.udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Which sockets of one or several drivers have something to read, in one system call ({@code epoll_wait}, zero
 * timeout), so a duty cycle reads only those. A driver on its own asks after a round that received nothing
 * ({@link UdpDriver#doWork()}); the collectives transport, which runs two endpoints of 8 path sockets each, asks every
 * round over both ({@link UdpDriver#receive(ReadinessPoll)}): reading all 16 after every round that received something
 * cost a small message about 30 {@code recvmmsg} calls that found nothing. An epoll set, not {@code ppoll}: a
 * {@code ppoll} of 16 sockets took 1.07 us here against 0.10 us for {@code epoll_wait} (0.24 us for one socket;
 * measured in C, docs/performance.md), and every waiting round of a caller asks. Native I/O only
 * ({@link #open} says null otherwise). One thread at a time (the driving one); the set is rebuilt when a driver's
 * sockets change (a re-route).
 */
public final class ReadinessPoll implements AutoCloseable {
    /** Freed with the poll: a transport closed while another thread still polls must not find it unmapped. */
    private final Arena arena = Arena.ofAuto();
    private final UdpDriver[] drivers;
    private final int[] firstIndex;
    private final long[] socketsVersion;
    private final MemorySegment state;
    /** The one {@code struct epoll_event} {@code epoll_ctl} reads. */
    private final MemorySegment event;
    /** What {@code epoll_wait} writes: one event per ready socket, its data the socket's index. */
    private MemorySegment events;
    private int[] descriptors = new int[32];
    /** Per socket index: ready at the last poll. */
    private boolean[] readyNow = new boolean[32];
    /** The indices set in {@link #readyNow}, to clear only those. */
    private int[] readyList = new int[32];
    private int readyCount;
    private int count;
    private int epollFd = -1;
    /** Whether the descriptors were all known and in the epoll set at the last rebuild. */
    private boolean usable;
    /** Whether the last {@link #poll()} answered: false means read every socket. */
    private boolean known;
    private boolean closed;

    private ReadinessPoll(List<UdpDriver> drivers) {
        this.drivers = drivers.toArray(UdpDriver[]::new);
        this.firstIndex = new int[this.drivers.length];
        this.socketsVersion = new long[this.drivers.length];
        java.util.Arrays.fill(socketsVersion, -1);
        this.state = arena.allocate(LinuxSyscalls.CALL_STATE);
        this.event = arena.allocate(LinuxSyscalls.EPOLL_EVENT_BYTES, 8);
        this.events = arena.allocate((long) descriptors.length * LinuxSyscalls.EPOLL_EVENT_BYTES, 8);
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
        if (closed) {
            known = false;
            return -1;
        }
        if (!descriptorsCurrent()) {
            usable = rebuild();
        }
        if (!usable) {
            known = false;
            return -1;
        }
        for (int i = 0; i < readyCount; i++) {
            readyNow[readyList[i]] = false;
        }
        readyCount = 0;
        int n = LinuxSyscalls.epollWait(epollFd, events.address(), count, 0);
        known = n >= 0;
        if (!known) {
            return -1;
        }
        for (int k = 0; k < n; k++) {
            long index = events.get(ValueLayout.JAVA_LONG_UNALIGNED,
                    (long) k * LinuxSyscalls.EPOLL_EVENT_BYTES + LinuxSyscalls.EPOLL_EVENT_DATA);
            if (index >= 0 && index < count && !readyNow[(int) index]) {
                readyNow[(int) index] = true;
                readyList[readyCount++] = (int) index;
            }
        }
        return readyCount;
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
                return readyNow[firstIndex[d] + socket];
            }
        }
        return true;   // not one of ours: read it
    }

    /** Closes the epoll set; later polls answer -1 (read every socket). Idempotent. */
    @Override
    public void close() {
        closed = true;
        known = false;
        closeEpoll();
    }

    private void closeEpoll() {
        if (epollFd >= 0) {
            LinuxSyscalls.close(state, epollFd);
            epollFd = -1;
        }
    }

    private boolean descriptorsCurrent() {
        for (int d = 0; d < drivers.length; d++) {
            if (drivers[d].socketsVersion() != socketsVersion[d]) {
                return false;
            }
        }
        return true;
    }

    /**
     * A new epoll set over every socket (a re-route changed them; rare).
     *
     * @return whether every socket has a descriptor in the set (else the drivers read them all until their sockets
     *         change)
     */
    private boolean rebuild() {
        int total = 0;
        for (UdpDriver d : drivers) {
            total += d.socketCount();
        }
        if (total > descriptors.length) {
            int size = Math.max(total, descriptors.length * 2);
            descriptors = new int[size];
            readyNow = new boolean[size];
            readyList = new int[size];
            readyCount = 0;
        }
        if ((long) descriptors.length * LinuxSyscalls.EPOLL_EVENT_BYTES > events.byteSize()) {
            events = arena.allocate((long) descriptors.length * LinuxSyscalls.EPOLL_EVENT_BYTES, 8);
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
        closeEpoll();
        epollFd = LinuxSyscalls.epollCreate1(state, LinuxSyscalls.EPOLL_CLOEXEC);
        if (epollFd < 0) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            event.set(ValueLayout.JAVA_INT, 0, LinuxSyscalls.EPOLLIN);
            event.set(ValueLayout.JAVA_LONG_UNALIGNED, LinuxSyscalls.EPOLL_EVENT_DATA, i);
            if (LinuxSyscalls.epollCtl(state, epollFd, LinuxSyscalls.EPOLL_CTL_ADD, descriptors[i], event.address())
                    < 0) {
                return false;
            }
        }
        count = n;
        return true;
    }
}
