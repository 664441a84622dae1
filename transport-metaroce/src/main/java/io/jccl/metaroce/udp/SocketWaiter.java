package io.jccl.metaroce.udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Lets a driver thread with nothing to do sleep in the kernel until a datagram arrives on any of its drivers'
 * sockets, a timer is due, or another thread {@linkplain #wake() wakes} it: {@code ppoll} over the sockets and an
 * {@code eventfd}. A parked thread would not notice a datagram until its pause ends, so every hop of the protocol
 * would pay the pause; a thread spinning instead takes a core from the application. Native I/O only
 * ({@link #open} says null otherwise).
 *
 * <p>{@link #await} runs on the driver thread; {@link #wake} on any thread. A wake-up that races with going to
 * sleep is never lost: the waker writes the eventfd whenever the sleeper has announced it is about to sleep, and
 * the sleeper checks its work source after announcing.
 */
public final class SocketWaiter implements AutoCloseable {
    private static final int MAX_DESCRIPTORS = 4096;

    private final List<UdpDriver> drivers;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment pollfds;
    private final MemorySegment timespec;
    private final MemorySegment readBuffer;
    private final MemorySegment one;
    private final MemorySegment waiterState;
    private final int[] descriptors = new int[MAX_DESCRIPTORS];
    private final int eventFd;
    private volatile boolean sleeping;
    private long sleeps;

    private SocketWaiter(List<UdpDriver> drivers, int eventFd, MemorySegment waiterState) {
        this.drivers = List.copyOf(drivers);
        this.eventFd = eventFd;
        this.waiterState = waiterState;
        this.pollfds = arena.allocate((long) (MAX_DESCRIPTORS + 1) * LinuxSyscalls.POLLFD_BYTES, 8);
        this.timespec = arena.allocate(LinuxSyscalls.TIMESPEC_BYTES, 8);
        this.readBuffer = arena.allocate(8, 8);
        this.one = arena.allocate(8, 8);
        one.set(ValueLayout.JAVA_LONG, 0, 1);
    }

    /**
     * @param drivers the drivers whose sockets wake the waiter
     * @return a waiter, or null when a driver does not use native I/O or the calls are not available here
     */
    public static SocketWaiter open(List<UdpDriver> drivers) {
        for (UdpDriver d : drivers) {
            if (d.ioMethod() != IoMethod.NATIVE) {
                return null;
            }
        }
        MemorySegment state = Arena.global().allocate(LinuxSyscalls.CALL_STATE);
        int fd = LinuxSyscalls.eventfd(state, 0, LinuxSyscalls.EFD_NONBLOCK | LinuxSyscalls.EFD_CLOEXEC);
        if (fd < 0) {
            return null;
        }
        return new SocketWaiter(drivers, fd, state);
    }

    /**
     * Sleeps until a socket has a datagram, {@code timeoutNs} passed, or {@link #wake()} was called. Returns at once
     * when {@code stillIdle} says there is work after all: it is asked after the sleep was announced, so work added
     * by a thread that then calls {@link #wake()} is either seen there or ends the sleep.
     *
     * @param timeoutNs longest sleep
     * @param stillIdle asked once, after announcing the sleep: false to return at once
     */
    public void await(long timeoutNs, java.util.function.BooleanSupplier stillIdle) {
        int n = 0;
        for (UdpDriver d : drivers) {
            n = d.descriptors(descriptors, n);
            if (n < 0) {
                return;   // too many sockets to watch: do not sleep
            }
        }
        for (int i = 0; i < n; i++) {
            long at = (long) i * LinuxSyscalls.POLLFD_BYTES;
            pollfds.set(ValueLayout.JAVA_INT, at, descriptors[i]);
            pollfds.set(ValueLayout.JAVA_SHORT, at + 4, LinuxSyscalls.POLLIN);
            pollfds.set(ValueLayout.JAVA_SHORT, at + 6, (short) 0);
        }
        long at = (long) n * LinuxSyscalls.POLLFD_BYTES;
        pollfds.set(ValueLayout.JAVA_INT, at, eventFd);
        pollfds.set(ValueLayout.JAVA_SHORT, at + 4, LinuxSyscalls.POLLIN);
        pollfds.set(ValueLayout.JAVA_SHORT, at + 6, (short) 0);
        long ns = Math.max(0, timeoutNs);
        timespec.set(ValueLayout.JAVA_LONG, 0, ns / 1_000_000_000L);
        timespec.set(ValueLayout.JAVA_LONG, 8, ns % 1_000_000_000L);
        sleeping = true;
        try {
            if (!stillIdle.getAsBoolean()) {
                return;
            }
            sleeps++;
            LinuxSyscalls.ppoll(pollfds.address(), n + 1, timespec.address());
            if ((pollfds.get(ValueLayout.JAVA_SHORT, at + 6) & LinuxSyscalls.POLLIN) != 0) {
                LinuxSyscalls.read(eventFd, readBuffer.address(), 8);   // reset the eventfd
            }
        } finally {
            sleeping = false;
        }
    }

    /** Wakes the driver thread if it is asleep in {@link #await} or about to be; cheap otherwise. */
    public void wake() {
        if (sleeping) {
            LinuxSyscalls.write(eventFd, one.address(), 8);   // errno ignored: a failed wake only delays
        }
    }

    /** @return how many times the driver thread slept (for diagnostics) */
    public long sleeps() {
        return sleeps;
    }

    @Override
    public void close() {
        LinuxSyscalls.close(waiterState, eventFd);
        arena.close();
    }
}
