package io.jccl.cli.bench.loss.tun;

import io.jccl.metaroce.ffm.Downcalls;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * One Linux TUN device (layer 3, no packet-information header) owned by this JVM, through hand-written FFM downcalls
 * to libc: {@code open("/dev/net/tun")}, {@code ioctl(TUNSETIFF)}, {@code read}, {@code write}, {@code poll},
 * {@code close}, and an {@code eventfd} to wake a thread waiting in {@code poll}.
 *
 * <p>The device exists while its file descriptor is open: {@link #close} removes it, wherever it has been moved.
 * The descriptor is non-blocking, so a reader waits in {@link #awaitReadable} next to a wake descriptor instead of
 * in {@code read}; that is how a relay thread is stopped without closing a descriptor under it (a closed number can
 * be reused at once by an unrelated file).
 *
 * <p>The per-packet calls ({@link #read}, {@link #write}) pass raw addresses and a caller-owned {@link Scratch},
 * so they allocate nothing. Constants and struct offsets are those of Linux on x86_64 and aarch64 (LP64,
 * asm-generic values). Loading this class links the calls and fails where they cannot be linked;
 * {@link TunLossLink#unavailableReason()} catches that.
 */
final class Tun implements AutoCloseable {
    /** {@link #read} found no packet ready. */
    static final int AGAIN = -1;
    /** Largest IPv4 packet, so also the largest a TUN device hands over. */
    static final int MAX_PACKET_BYTES = 65_535;
    /** Kernel limit on an interface name, without the terminating NUL. */
    static final int MAX_NAME_CHARS = 15;

    private static final int O_RDWR = 2;
    private static final int O_NONBLOCK = 0x800;
    private static final int O_CLOEXEC = 0x80000;
    /** {@code _IOW('T', 202, int)}. */
    private static final long TUNSETIFF = 0x400454caL;
    private static final short IFF_TUN = 0x0001;
    private static final short IFF_NO_PI = 0x1000;
    /** {@code struct ifreq}: a 16-byte name, then a 24-byte union whose first member is the short flags. */
    private static final int IFREQ_BYTES = 40;
    private static final int IFREQ_FLAGS_OFFSET = 16;
    private static final short POLLIN = 1;
    /** {@code struct pollfd}: int fd, short events, short revents. */
    private static final int POLLFD_BYTES = 8;
    private static final int EFD_NONBLOCK = 0x800;
    private static final int EFD_CLOEXEC = 0x80000;

    static final int EINTR = 4;
    static final int EIO = 5;
    static final int EAGAIN = 11;
    static final int ENOBUFS = 105;

    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final long ERRNO_OFFSET = CALL_STATE.byteOffset(groupElement("errno"));

    private static final MethodHandle OPEN;
    private static final MethodHandle IOCTL;
    private static final MethodHandle READ;
    private static final MethodHandle WRITE;
    private static final MethodHandle POLL;
    private static final MethodHandle CLOSE;
    private static final MethodHandle EVENTFD;
    private static final MethodHandle STRERROR;

    static {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        // open and ioctl are variadic: the third argument (mode, argp) is the first variadic one.
        OPEN = link(linker, libc, "open", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT), errno,
                Linker.Option.firstVariadicArg(2));
        IOCTL = link(linker, libc, "ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), errno,
                Linker.Option.firstVariadicArg(2));
        READ = link(linker, libc, "read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), errno);
        WRITE = link(linker, libc, "write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), errno);
        // poll's errno is not captured: a failed wait only sends the caller back to read, whose errno tells. The
        // capture costs an allocation per call until C2 has compiled the call, and this one runs once per idle
        // wake-up, too rarely to be compiled soon.
        POLL = link(linker, libc, "poll", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
        CLOSE = link(linker, libc, "close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), errno);
        EVENTFD = link(linker, libc, "eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), errno);
        STRERROR = link(linker, libc, "strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    private final int fd;
    private final String name;
    private boolean closed;

    private Tun(int fd, String name) {
        this.fd = fd;
        this.name = name;
    }

    /**
     * Native scratch memory for one thread's calls: the {@code errno} capture and a {@code pollfd} pair. Allocated
     * once per thread, so the per-packet calls allocate nothing.
     */
    static final class Scratch {
        private final MemorySegment callState;
        private final MemorySegment pollFds;

        /** @param arena owns the memory; a confined arena of the thread that will use it */
        Scratch(Arena arena) {
            callState = arena.allocate(CALL_STATE);
            pollFds = arena.allocate(2L * POLLFD_BYTES, 8);
        }

        int errno() {
            return callState.get(JAVA_INT, ERRNO_OFFSET);
        }
    }

    /**
     * Creates a TUN device ({@code IFF_TUN | IFF_NO_PI}) in this process's network namespace.
     *
     * @param namePattern the interface name; a {@code %d} in it lets the kernel pick the first free number
     * @return the open device; its {@link #name()} is the name the kernel gave it
     * @throws IOException naming the call and the error, e.g. {@code EPERM} without {@code CAP_NET_ADMIN}
     */
    static Tun create(String namePattern) throws IOException {
        byte[] nameBytes = namePattern.getBytes(StandardCharsets.US_ASCII);
        if (nameBytes.length == 0 || nameBytes.length > MAX_NAME_CHARS) {
            throw new IllegalArgumentException("namePattern must have 1 to " + MAX_NAME_CHARS + " characters, got '"
                    + namePattern + "'");
        }
        try (Arena arena = Arena.ofConfined()) {
            Scratch scratch = new Scratch(arena);
            MemorySegment path = arena.allocateFrom("/dev/net/tun");
            int fd = open(scratch, path.address(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0) {
                throw error("open(\"/dev/net/tun\", O_RDWR)", scratch.errno());
            }
            MemorySegment ifreq = arena.allocate(IFREQ_BYTES, 8); // zeroed
            MemorySegment.copy(nameBytes, 0, ifreq, JAVA_BYTE, 0, nameBytes.length);
            ifreq.set(JAVA_SHORT, IFREQ_FLAGS_OFFSET, (short) (IFF_TUN | IFF_NO_PI));
            if (ioctl(scratch, fd, TUNSETIFF, ifreq.address()) < 0) {
                int errno = scratch.errno();
                close(scratch, fd);
                throw error("ioctl(TUNSETIFF, \"" + namePattern + "\") on /dev/net/tun", errno);
            }
            return new Tun(fd, ifreq.getString(0, StandardCharsets.US_ASCII));
        }
    }

    /** @return the interface name the kernel gave this device */
    String name() {
        return name;
    }

    /**
     * Reads one packet, without waiting.
     *
     * @param buffer at least {@link #MAX_PACKET_BYTES} bytes of native memory
     * @return the packet's size in bytes, or {@link #AGAIN} when none is ready
     * @throws IOException any other failure, named
     */
    int read(Scratch scratch, MemorySegment buffer) throws IOException {
        while (true) {
            long bytes = read(scratch, fd, buffer.address(), buffer.byteSize());
            if (bytes >= 0) {
                return (int) bytes;
            }
            int errno = scratch.errno();
            if (errno == EAGAIN) {
                return AGAIN;
            }
            if (errno != EINTR) {
                throw error("read(" + name + ")", errno);
            }
        }
    }

    /**
     * Hands one packet to the kernel, which receives it as if it had arrived on this interface.
     *
     * @return false when the kernel refused it for a passing reason ({@code EAGAIN}, {@code ENOBUFS}, or
     *         {@code EIO} while the interface is down): the packet is lost, as on a congested link
     * @throws IOException any other failure, named
     */
    boolean write(Scratch scratch, MemorySegment packet, int sizeBytes) throws IOException {
        while (true) {
            long written = write(scratch, fd, packet.address(), sizeBytes);
            if (written >= 0) {
                return true; // a TUN write takes the whole packet or fails
            }
            int errno = scratch.errno();
            if (errno == EAGAIN || errno == ENOBUFS || errno == EIO) {
                return false;
            }
            if (errno != EINTR) {
                throw error("write(" + name + ", " + sizeBytes + " bytes)", errno);
            }
        }
    }

    /**
     * Waits until a packet is ready, {@code wakeFd} is readable, or the time is up, whichever comes first.
     *
     * @param wakeFd an {@link #eventFd()} that {@link #signal} makes readable for good
     * @return false when {@code poll} failed (a signal, or a bad descriptor: the next {@link #read} tells)
     */
    boolean awaitReadable(Scratch scratch, int wakeFd, int timeoutMs) {
        MemorySegment fds = scratch.pollFds;
        fds.set(JAVA_INT, 0, fd);
        fds.set(JAVA_SHORT, 4, POLLIN);
        fds.set(JAVA_SHORT, 6, (short) 0);
        fds.set(JAVA_INT, POLLFD_BYTES, wakeFd);
        fds.set(JAVA_SHORT, POLLFD_BYTES + 4, POLLIN);
        fds.set(JAVA_SHORT, POLLFD_BYTES + 6, (short) 0);
        return poll(fds.address(), 2, timeoutMs) >= 0;
    }

    /** Closes the descriptor, which removes the device. Idempotent; must not race a call on this device. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        closeFd(fd, "close(" + name + ")");
    }

    /** @return a new non-blocking, close-on-exec {@code eventfd} with counter 0 */
    static int eventFd() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            Scratch scratch = new Scratch(arena);
            int fd = eventfd(scratch, 0, EFD_NONBLOCK | EFD_CLOEXEC);
            if (fd < 0) {
                throw error("eventfd()", scratch.errno());
            }
            return fd;
        }
    }

    /** Adds 1 to an {@code eventfd}'s counter; nobody reads it, so it stays readable and every poller wakes. */
    static void signal(int eventFd) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            Scratch scratch = new Scratch(arena);
            MemorySegment one = arena.allocate(JAVA_LONG);
            one.set(JAVA_LONG, 0, 1L);
            if (write(scratch, eventFd, one.address(), 8) < 0) {
                throw error("write(eventfd)", scratch.errno());
            }
        }
    }

    /** Closes a descriptor this class opened. */
    static void closeFd(int fd, String what) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            Scratch scratch = new Scratch(arena);
            if (close(scratch, fd) < 0 && scratch.errno() != EINTR) { // after EINTR Linux has closed it anyway
                throw error(what, scratch.errno());
            }
        }
    }

    /**
     * @return an exception reading {@code "<call> failed: EPERM (Operation not permitted)"}
     */
    static IOException error(String call, int errno) {
        return new IOException(call + " failed: " + describeErrno(errno));
    }

    /** @return the errno's symbolic name where known, and libc's text: {@code "ENOENT (No such file ...)"} */
    static String describeErrno(int errno) {
        String symbol = switch (errno) {
            case 1 -> "EPERM";
            case 2 -> "ENOENT";
            case EINTR -> "EINTR";
            case EIO -> "EIO";
            case 6 -> "ENXIO";
            case 9 -> "EBADF";
            case EAGAIN -> "EAGAIN";
            case 12 -> "ENOMEM";
            case 13 -> "EACCES";
            case 14 -> "EFAULT";
            case 16 -> "EBUSY";
            case 17 -> "EEXIST";
            case 19 -> "ENODEV";
            case 22 -> "EINVAL";
            case 23 -> "ENFILE";
            case 24 -> "EMFILE";
            case 77 -> "EBADFD";
            case 90 -> "EMSGSIZE";
            case ENOBUFS -> "ENOBUFS";
            default -> "errno " + errno;
        };
        return symbol + " (" + strerror(errno) + ")";
    }

    @SuppressWarnings("restricted") // strerror's result is a NUL-terminated string of unknown length
    private static String strerror(int errno) {
        try {
            MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
            return text.equals(MemorySegment.NULL) ? "unknown error" : text.reinterpret(1024).getString(0);
        } catch (Throwable t) {
            return "unknown error";
        }
    }

    @SuppressWarnings("restricted") // native access, which JCCL's JVM flags enable
    private static MethodHandle link(Linker linker, SymbolLookup libc, String name, FunctionDescriptor descriptor,
                                     Linker.Option... options) {
        MemorySegment symbol = libc.find(name).orElseThrow(() -> new UnsupportedOperationException(
                "libc has no " + name));
        return linker.downcallHandle(symbol, descriptor, options);
    }

    private static int open(Scratch s, long path, int flags) {
        return (int) Downcalls.call(OPEN, s.callState, path, flags, 0);
    }

    private static int ioctl(Scratch s, int fd, long request, long argument) {
        return (int) Downcalls.call(IOCTL, s.callState, fd, request, argument);
    }

    private static long read(Scratch s, int fd, long buffer, long count) {
        try {
            return (long) READ.invokeExact(s.callState, fd, buffer, count);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private static long write(Scratch s, int fd, long buffer, long count) {
        try {
            return (long) WRITE.invokeExact(s.callState, fd, buffer, count);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private static int poll(long fds, long count, int timeoutMs) {
        try {
            return (int) POLL.invokeExact(fds, count, timeoutMs);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private static int close(Scratch s, int fd) {
        return (int) Downcalls.call(CLOSE, s.callState, fd);
    }

    private static int eventfd(Scratch s, int initialValue, int flags) {
        return (int) Downcalls.call(EVENTFD, s.callState, initialValue, flags);
    }
}
