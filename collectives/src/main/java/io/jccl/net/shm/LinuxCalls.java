package io.jccl.net.shm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The libc and system calls the shm transport makes, as FFM downcalls, with the Linux constants it needs (the same on
 * x86_64 and aarch64 except the system call numbers). Pointers are passed as {@code long} addresses, so a call builds
 * no segment; every call captures {@code errno} into a caller-owned segment of {@link #CALL_STATE}'s layout.
 *
 * <p>Loading this class links the calls and fails where they cannot be linked: ask {@link Native#unavailableReason()}
 * first.
 */
final class LinuxCalls {
    static final int O_RDWR = 2;
    static final int O_CLOEXEC = 0x80000;
    static final int MFD_CLOEXEC = 1;
    static final int MFD_ALLOW_SEALING = 2;
    static final int F_ADD_SEALS = 1033;
    static final int F_GET_SEALS = 1034;
    static final int F_SEAL_SEAL = 1;
    static final int F_SEAL_SHRINK = 2;
    static final int F_SEAL_GROW = 4;
    static final int PROT_READ = 1;
    static final int PROT_WRITE = 2;
    static final int MAP_SHARED = 1;
    static final int SEEK_END = 2;
    /** Shared futexes: no {@code FUTEX_PRIVATE_FLAG}, the word lives in memory other processes map. */
    static final int FUTEX_WAIT = 0;
    static final int FUTEX_WAKE = 1;
    static final short POLLIN = 1;
    static final int PR_SET_PTRACER = 0x59616d61;
    static final long PR_SET_PTRACER_ANY = -1L;

    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int ESRCH = 3;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int EACCES = 13;
    static final int EFAULT = 14;
    static final int EINVAL = 22;
    static final int ENOSYS = 38;
    static final int ETIMEDOUT = 110;

    /** Bytes of a {@code struct iovec}. */
    static final int IOVEC_BYTES = 16;
    /** Bytes of a {@code struct pollfd}. */
    static final int POLLFD_BYTES = 8;
    /** Bytes of a {@code struct timespec}. */
    static final int TIMESPEC_BYTES = 16;

    /** Layout of the segment each call writes {@code errno} into. */
    static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final long ERRNO = CALL_STATE.byteOffset(groupElement("errno"));

    private static final long SYS_FUTEX;
    private static final long SYS_PIDFD_OPEN = 434;

    private static final MethodHandle MEMFD_CREATE;
    private static final MethodHandle FTRUNCATE;
    private static final MethodHandle FCNTL;
    private static final MethodHandle OPEN;
    private static final MethodHandle CLOSE;
    private static final MethodHandle LSEEK;
    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle PROCESS_VM_READV;
    /** Without errno capture: the capture allocates a slice per call where escape analysis fails. */
    private static final MethodHandle PROCESS_VM_READV_FAST;
    private static final MethodHandle SYSCALL;
    private static final MethodHandle SYSCALL_FAST;
    private static final MethodHandle POLL_FAST;
    private static final MethodHandle PRCTL;
    private static final MethodHandle KILL;

    static {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        SYS_FUTEX = switch (arch) {
            case "amd64", "x86_64" -> 202;
            case "aarch64", "arm64" -> 98;
            default -> throw new UnsupportedOperationException("no futex system call number for " + arch);
        };
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        MEMFD_CREATE = link(linker, libc, "memfd_create", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT), errno);
        FTRUNCATE = link(linker, libc, "ftruncate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), errno);
        FCNTL = link(linker, libc, "fcntl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), errno,
                Linker.Option.firstVariadicArg(2));
        OPEN = link(linker, libc, "open", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT), errno,
                Linker.Option.firstVariadicArg(2));
        CLOSE = link(linker, libc, "close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), errno);
        LSEEK = link(linker, libc, "lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT), errno);
        MMAP = link(linker, libc, "mmap", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT,
                JAVA_INT, JAVA_LONG), errno);
        MUNMAP = link(linker, libc, "munmap", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG), errno);
        FunctionDescriptor readv = FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG);
        PROCESS_VM_READV = link(linker, libc, "process_vm_readv", readv, errno);
        PROCESS_VM_READV_FAST = link(linker, libc, "process_vm_readv", readv);
        // syscall(number, a1..a6): every argument as a long, as the kernel reads them.
        FunctionDescriptor syscall = FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_LONG);
        SYSCALL = link(linker, libc, "syscall", syscall, errno, Linker.Option.firstVariadicArg(1));
        SYSCALL_FAST = link(linker, libc, "syscall", syscall, Linker.Option.firstVariadicArg(1));
        POLL_FAST = link(linker, libc, "poll", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
        PRCTL = link(linker, libc, "prctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG), errno, Linker.Option.firstVariadicArg(1));
        KILL = link(linker, libc, "kill", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), errno);
    }

    private LinuxCalls() {
    }

    @SuppressWarnings("restricted") // native access, which JCCL's JVM flags enable; a denial is caught by Native
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

    static int memfdCreate(MemorySegment state, long name, int flags) {
        try {
            return (int) MEMFD_CREATE.invokeExact(state, name, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int ftruncate(MemorySegment state, int fd, long bytes) {
        try {
            return (int) FTRUNCATE.invokeExact(state, fd, bytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int fcntl(MemorySegment state, int fd, int command, int argument) {
        try {
            return (int) FCNTL.invokeExact(state, fd, command, argument);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int open(MemorySegment state, long path, int flags) {
        try {
            return (int) OPEN.invokeExact(state, path, flags, 0);
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

    static long lseek(MemorySegment state, int fd, long offset, int whence) {
        try {
            return (long) LSEEK.invokeExact(state, fd, offset, whence);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @return the mapping's address, or -1 ({@code MAP_FAILED}) */
    static long mmap(MemorySegment state, long bytes, int fd) {
        try {
            return (long) MMAP.invokeExact(state, 0L, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int munmap(MemorySegment state, long address, long bytes) {
        try {
            return (int) MUNMAP.invokeExact(state, address, bytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long processVmReadv(MemorySegment state, int pid, long localIov, long localCount, long remoteIov,
                               long remoteCount) {
        try {
            return (long) PROCESS_VM_READV.invokeExact(state, pid, localIov, localCount, remoteIov, remoteCount, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code process_vm_readv} without capturing {@code errno}, for the data path: allocates nothing. On a failure
     * (-1) the caller repeats the call through {@link #processVmReadv} to learn why.
     */
    static long processVmReadvFast(int pid, long localIov, long localCount, long remoteIov, long remoteCount) {
        try {
            return (long) PROCESS_VM_READV_FAST.invokeExact(pid, localIov, localCount, remoteIov, remoteCount, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code futex(address, FUTEX_WAIT, expected, timeout)}: sleeps while the word holds {@code expected}. */
    static long futexWait(long address, int expected, long timespec) {
        try {
            return (long) SYSCALL_FAST.invokeExact(SYS_FUTEX, address, (long) FUTEX_WAIT, (long) expected, timespec,
                    0L, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code futex(address, FUTEX_WAKE, count)}. */
    static long futexWake(long address, int count) {
        try {
            return (long) SYSCALL_FAST.invokeExact(SYS_FUTEX, address, (long) FUTEX_WAKE, (long) count, 0L, 0L, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code pidfd_open(pid, 0)}: a descriptor that becomes readable when the process exits. */
    static int pidfdOpen(MemorySegment state, long pid) {
        try {
            return (int) (long) SYSCALL.invokeExact(state, SYS_PIDFD_OPEN, pid, 0L, 0L, 0L, 0L, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code poll} without capturing {@code errno}: allocates nothing. */
    static int poll(long fds, long count, int timeoutMs) {
        try {
            return (int) POLL_FAST.invokeExact(fds, count, timeoutMs);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int prctl(MemorySegment state, int option, long argument) {
        try {
            return (int) PRCTL.invokeExact(state, option, argument, 0L, 0L, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int kill(MemorySegment state, int pid, int signal) {
        try {
            return (int) KILL.invokeExact(state, pid, signal);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @return the symbolic name of an {@code errno} value the transport reports */
    static String errnoName(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case ESRCH -> "ESRCH";
            case EINTR -> "EINTR";
            case EAGAIN -> "EAGAIN";
            case EACCES -> "EACCES";
            case EFAULT -> "EFAULT";
            case EINVAL -> "EINVAL";
            case ENOSYS -> "ENOSYS";
            case ETIMEDOUT -> "ETIMEDOUT";
            default -> "errno " + errno;
        };
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }

    /** Whether the calls can be used here, asked before anything touches {@link LinuxCalls}. */
    static final class Native {
        private static final String UNAVAILABLE = probe();

        private Native() {
        }

        /** @return null when the calls link, otherwise why not */
        static String unavailableReason() {
            return UNAVAILABLE;
        }

        private static String probe() {
            if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")) {
                return "the shm transport needs Linux, not " + System.getProperty("os.name");
            }
            try {
                return LinuxCalls.SYS_FUTEX > 0 ? null : "no futex";
            } catch (LinkageError | RuntimeException e) {
                Throwable cause = e instanceof ExceptionInInitializerError x && x.getCause() != null ? x.getCause() : e;
                return "cannot link the system calls it needs: " + cause;
            }
        }
    }
}
