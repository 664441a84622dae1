package io.jccl.metaroce.udp;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import static io.jccl.metaroce.ffm.Downcalls.rethrow;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The libc socket calls {@link NativeDatagramIo} needs, as FFM downcalls, with the Linux constants and struct layouts
 * shared by x86_64 and aarch64 (LP64, asm-generic socket and errno numbers). Pointers are passed as {@code long}
 * addresses, so a call builds no segment; every call captures {@code errno} into a caller-owned segment.
 *
 * <p>Loading this class links the calls, and fails where they cannot be linked: ask
 * {@link NativeDatagramIo#unavailableReason} first.
 */
final class LinuxSyscalls {
    static final int AF_INET = 2;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int IPPROTO_IP = 0;
    static final int IP_TOS = 1;
    static final int IP_RECVTOS = 13;
    static final int SOL_UDP = 17;
    static final int UDP_SEGMENT = 103;
    static final int UDP_GRO = 104;
    static final int MSG_DONTWAIT = 0x40;
    static final int MSG_TRUNC = 0x20;

    static final int EINTR = 4;
    static final int EIO = 5;
    static final int EAGAIN = 11;
    static final int EINVAL = 22;
    static final int EMSGSIZE = 90;
    static final int EADDRINUSE = 98;
    static final int ENOPROTOOPT = 92;
    static final int ENOBUFS = 105;

    /** {@code struct iovec}. */
    static final StructLayout IOVEC = MemoryLayout.structLayout(JAVA_LONG.withName("iov_base"),
            JAVA_LONG.withName("iov_len"));
    /** {@code struct sockaddr_in}: port and address in network byte order. */
    static final StructLayout SOCKADDR_IN = MemoryLayout.structLayout(ValueLayout.JAVA_SHORT.withName("sin_family"),
            ValueLayout.JAVA_SHORT.withName("sin_port"), JAVA_INT.withName("sin_addr"),
            MemoryLayout.sequenceLayout(8, ValueLayout.JAVA_BYTE).withName("sin_zero"));
    /** {@code struct msghdr}. */
    static final StructLayout MSGHDR = MemoryLayout.structLayout(JAVA_LONG.withName("msg_name"),
            JAVA_INT.withName("msg_namelen"), MemoryLayout.paddingLayout(4), JAVA_LONG.withName("msg_iov"),
            JAVA_LONG.withName("msg_iovlen"), JAVA_LONG.withName("msg_control"),
            JAVA_LONG.withName("msg_controllen"), JAVA_INT.withName("msg_flags"), MemoryLayout.paddingLayout(4));
    /** {@code struct mmsghdr}. */
    static final StructLayout MMSGHDR = MemoryLayout.structLayout(MSGHDR.withName("msg_hdr"),
            JAVA_INT.withName("msg_len"), MemoryLayout.paddingLayout(4));
    /** {@code struct cmsghdr}; its data follows at {@link #CMSG_DATA}. */
    static final StructLayout CMSGHDR = MemoryLayout.structLayout(JAVA_LONG.withName("cmsg_len"),
            JAVA_INT.withName("cmsg_level"), JAVA_INT.withName("cmsg_type"));

    static final long IOV_BASE = IOVEC.byteOffset(groupElement("iov_base"));
    static final long IOV_LEN = IOVEC.byteOffset(groupElement("iov_len"));
    static final long SIN_FAMILY = SOCKADDR_IN.byteOffset(groupElement("sin_family"));
    static final long SIN_PORT = SOCKADDR_IN.byteOffset(groupElement("sin_port"));
    static final long SIN_ADDR = SOCKADDR_IN.byteOffset(groupElement("sin_addr"));
    static final long MSG_NAME = offsetInMmsghdr("msg_name");
    static final long MSG_NAMELEN = offsetInMmsghdr("msg_namelen");
    static final long MSG_IOV = offsetInMmsghdr("msg_iov");
    static final long MSG_IOVLEN = offsetInMmsghdr("msg_iovlen");
    static final long MSG_CONTROL = offsetInMmsghdr("msg_control");
    static final long MSG_CONTROLLEN = offsetInMmsghdr("msg_controllen");
    static final long MSG_FLAGS = offsetInMmsghdr("msg_flags");
    static final long MSG_LEN = MMSGHDR.byteOffset(groupElement("msg_len"));
    static final long CMSG_LEN = CMSGHDR.byteOffset(groupElement("cmsg_len"));
    static final long CMSG_LEVEL = CMSGHDR.byteOffset(groupElement("cmsg_level"));
    static final long CMSG_TYPE = CMSGHDR.byteOffset(groupElement("cmsg_type"));
    /** Offset of a control message's data: {@code CMSG_DATA}. */
    static final long CMSG_DATA = CMSGHDR.byteSize();

    /** Port and address of a {@code sockaddr_in} are big-endian. */
    static final ValueLayout.OfShort NET_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt NET_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    /** Layout of the segment each call writes {@code errno} into. */
    static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final long ERRNO = CALL_STATE.byteOffset(groupElement("errno"));

    private static final MethodHandle SOCKET;
    private static final MethodHandle BIND;
    private static final MethodHandle GETSOCKNAME;
    private static final MethodHandle SETSOCKOPT;
    private static final MethodHandle GETSOCKOPT;
    private static final MethodHandle SENDMMSG;
    private static final MethodHandle SENDTO;
    private static final MethodHandle RECVMMSG;
    // The calls of the steady path, linked a second time without capturing errno: the JDK slices the capture
    // segment on every capturing call (SharedUtils.checkCaptureSegment, not force-inlined), an object per call
    // wherever the JIT does not inline the whole downcall chain. It failed the allocation test in a full build (80 B
    // per round, every window). Their wrappers below try these first and repeat a failed call through the capturing
    // handle, so errno is in the state whenever they answer -1: these calls do nothing when they fail, so asking
    // again is safe.
    private static final MethodHandle SENDMMSG_FAST;
    private static final MethodHandle SENDTO_FAST;
    private static final MethodHandle RECVMMSG_FAST;
    private static final MethodHandle CLOSE;
    private static final MethodHandle PPOLL;
    private static final MethodHandle EPOLL_CREATE1;
    private static final MethodHandle EPOLL_CTL;
    private static final MethodHandle EPOLL_WAIT;
    private static final MethodHandle EVENTFD;
    private static final MethodHandle READ;
    private static final MethodHandle WRITE;

    static final short POLLIN = 1;
    /** {@code struct pollfd}: fd, events, revents. */
    static final int POLLFD_BYTES = 8;
    /** {@code struct timespec}: seconds, nanoseconds. */
    static final int TIMESPEC_BYTES = 16;
    static final int EPOLL_CLOEXEC = 0x80000;
    static final int EPOLL_CTL_ADD = 1;
    /** {@code EPOLLIN}; {@code EPOLLERR} and {@code EPOLLHUP} are always reported. */
    static final int EPOLLIN = 1;
    /**
     * {@code struct epoll_event}: events (u32), then data (u64), packed on x86_64 (12 bytes) but aligned elsewhere
     * (16 bytes: the one layout the two architectures do not share).
     */
    static final int EPOLL_EVENT_BYTES = "amd64".equals(System.getProperty("os.arch"))
            || "x86_64".equals(System.getProperty("os.arch")) ? 12 : 16;
    /** Offset of {@code data} in {@code struct epoll_event}. */
    static final int EPOLL_EVENT_DATA = EPOLL_EVENT_BYTES == 12 ? 4 : 8;
    static final int EFD_NONBLOCK = 0x800;
    static final int EFD_CLOEXEC = 0x80000;

    static {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        SOCKET = link(linker, libc, "socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), errno);
        BIND = link(linker, libc, "bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT), errno);
        GETSOCKNAME = link(linker, libc, "getsockname", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG,
                JAVA_LONG), errno);
        SETSOCKOPT = link(linker, libc, "setsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
                JAVA_LONG, JAVA_INT), errno);
        GETSOCKOPT = link(linker, libc, "getsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
                JAVA_LONG, JAVA_LONG), errno);
        FunctionDescriptor sendmmsg = FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT);
        FunctionDescriptor sendto = FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT,
                JAVA_LONG, JAVA_INT);
        FunctionDescriptor recvmmsg = FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT,
                JAVA_LONG);
        SENDMMSG = link(linker, libc, "sendmmsg", sendmmsg, errno);
        SENDTO = link(linker, libc, "sendto", sendto, errno);
        RECVMMSG = link(linker, libc, "recvmmsg", recvmmsg, errno);
        SENDMMSG_FAST = link(linker, libc, "sendmmsg", sendmmsg);
        SENDTO_FAST = link(linker, libc, "sendto", sendto);
        RECVMMSG_FAST = link(linker, libc, "recvmmsg", recvmmsg);
        CLOSE = link(linker, libc, "close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), errno);
        PPOLL = link(linker, libc, "ppoll", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG));
        EPOLL_CREATE1 = link(linker, libc, "epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT), errno);
        EPOLL_CTL = link(linker, libc, "epoll_ctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
                JAVA_LONG), errno);
        EPOLL_WAIT = link(linker, libc, "epoll_wait", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT,
                JAVA_INT));
        EVENTFD = link(linker, libc, "eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), errno);
        READ = link(linker, libc, "read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG));
        WRITE = link(linker, libc, "write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG));
    }

    private LinuxSyscalls() {
    }

    private static long offsetInMmsghdr(String field) {
        return MMSGHDR.byteOffset(groupElement("msg_hdr"), groupElement(field));
    }

    @SuppressWarnings("restricted") // native access, which JCCL's JVM flags enable; a denial is caught by the probe
    private static MethodHandle link(Linker linker, SymbolLookup libc, String name, FunctionDescriptor descriptor,
                                     Linker.Option... options) {
        MemorySegment symbol = libc.find(name).orElseThrow(() -> new UnsupportedOperationException(
                "libc has no " + name));
        return linker.downcallHandle(symbol, descriptor, options);
    }

    /** @return the {@code errno} the last call through {@code state} captured */
    static int errno(MemorySegment state) {
        return state.get(JAVA_INT, ERRNO);
    }

    static int socket(MemorySegment state, int domain, int type, int protocol) {
        try {
            return (int) SOCKET.invokeExact(state, domain, type, protocol);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int bind(MemorySegment state, int fd, long address, int addressBytes) {
        try {
            return (int) BIND.invokeExact(state, fd, address, addressBytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int getsockname(MemorySegment state, int fd, long address, long addressBytesPointer) {
        try {
            return (int) GETSOCKNAME.invokeExact(state, fd, address, addressBytesPointer);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int setsockopt(MemorySegment state, int fd, int level, int option, long value, int valueBytes) {
        try {
            return (int) SETSOCKOPT.invokeExact(state, fd, level, option, value, valueBytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int getsockopt(MemorySegment state, int fd, int level, int option, long value, long valueBytesPointer) {
        try {
            return (int) GETSOCKOPT.invokeExact(state, fd, level, option, value, valueBytesPointer);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @return messages sent, or -1 with errno in {@code state} (asked through the capturing handle only then) */
    static int sendmmsg(MemorySegment state, int fd, long messages, int count, int flags) {
        try {
            int sent = (int) SENDMMSG_FAST.invokeExact(fd, messages, count, flags);
            return sent >= 0 ? sent : (int) SENDMMSG.invokeExact(state, fd, messages, count, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * One datagram of {@code length} bytes at {@code data} to the socket address at {@code name}: bytes sent, or -1
     * with errno in {@code state} (asked through the capturing handle only then).
     */
    static long sendto(MemorySegment state, int fd, long data, long length, int flags, long name, int nameLength) {
        try {
            long sent = (long) SENDTO_FAST.invokeExact(fd, data, length, flags, name, nameLength);
            return sent >= 0 ? sent : (long) SENDTO.invokeExact(state, fd, data, length, flags, name, nameLength);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @return messages received, or -1 with errno in {@code state} (asked through the capturing handle only then) */
    static int recvmmsg(MemorySegment state, int fd, long messages, int count, int flags) {
        try {
            int got = (int) RECVMMSG_FAST.invokeExact(fd, messages, count, flags, 0L);
            return got >= 0 ? got : (int) RECVMMSG.invokeExact(state, fd, messages, count, flags, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int close(MemorySegment state, int fd) {
        try {
            return (int) CLOSE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ppoll(fds, nfds, timeout, NULL)}; errno is not captured (nobody needs it). */
    static int ppoll(long fds, long count, long timespec) {
        try {
            return (int) PPOLL.invokeExact(fds, count, timespec, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int epollCreate1(MemorySegment state, int flags) {
        try {
            return (int) EPOLL_CREATE1.invokeExact(state, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code epoll_ctl(epfd, op, fd, event)}, {@code event} the address of a {@code struct epoll_event}. */
    static int epollCtl(MemorySegment state, int epfd, int op, int fd, long event) {
        try {
            return (int) EPOLL_CTL.invokeExact(state, epfd, op, fd, event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code epoll_wait(epfd, events, maxEvents, timeoutMs)}; errno is not captured (nobody needs it). */
    static int epollWait(int epfd, long events, int maxEvents, int timeoutMs) {
        try {
            return (int) EPOLL_WAIT.invokeExact(epfd, events, maxEvents, timeoutMs);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int eventfd(MemorySegment state, int initialValue, int flags) {
        try {
            return (int) EVENTFD.invokeExact(state, initialValue, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code read}; errno is not captured (nobody needs it). */
    static long read(int fd, long buffer, long bytes) {
        try {
            return (long) READ.invokeExact(fd, buffer, bytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code write}; errno is not captured (nobody needs it). */
    static long write(int fd, long buffer, long bytes) {
        try {
            return (long) WRITE.invokeExact(fd, buffer, bytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @return the size of a control message carrying {@code dataBytes}: {@code CMSG_SPACE} */
    static long cmsgSpace(int dataBytes) {
        return CMSG_DATA + align8(dataBytes);
    }

    static long align8(long bytes) {
        return (bytes + 7) & ~7L;
    }
}
