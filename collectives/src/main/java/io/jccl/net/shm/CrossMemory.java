package io.jccl.net.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * Linux cross-memory attach ({@code process_vm_readv}): whether this process may use it, and the probe a receiver
 * makes before it relies on it for a connection.
 *
 * <p>The kernel lets a process read another's memory when it may attach to it with ptrace
 * ({@code PTRACE_MODE_ATTACH_REALCREDS}): same user and, under the Yama security module, a
 * {@code /proc/sys/kernel/yama/ptrace_scope} of 0; at scope 1 only a declared tracer may, so this process declares
 * every process allowed ({@code prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY)}, as Open MPI's vader BTL does), which
 * lets sibling ranks read it; scopes 2 and 3 leave it to administrators. A seccomp filter (some container runtimes)
 * may refuse the call outright. The check here reads this process's own memory through the call, which catches a
 * missing or filtered system call; whether a given peer may read this process is probed per connection
 * ({@link #probePeer}).
 */
final class CrossMemory {
    private static final String YAMA = "/proc/sys/kernel/yama/ptrace_scope";
    private static final Object LOCK = new Object();
    private static MemorySegment probeWord;
    private static long probeValue;
    private static Availability availability;

    /**
     * Whether this process can use cross-memory attach.
     *
     * @param usable whether the kernel allows it
     * @param reason why not, e.g. {@code EPERM: /proc/sys/kernel/yama/ptrace_scope=2}; or, when usable, what was done
     *               for it (empty when nothing)
     */
    record Availability(boolean usable, String reason) {
    }

    private CrossMemory() {
    }

    /** @return the address of this process's probe word, which a peer reads to check it may */
    static long probeAddress() {
        init();
        return probeWord.address();
    }

    /** @return the value of this process's probe word */
    static long probeValue() {
        init();
        return probeValue;
    }

    private static void init() {
        synchronized (LOCK) {
            if (probeWord == null) {
                probeWord = Arena.global().allocate(8, 8);
                long value;
                do {
                    value = new SecureRandom().nextLong();
                } while (value == 0);
                probeValue = value;
                probeWord.set(ValueLayout.JAVA_LONG, 0, value);
            }
        }
    }

    /**
     * Finds out, once per process, whether cross-memory attach can work, declaring this process readable by its
     * siblings where Yama asks for that.
     *
     * @return the answer
     */
    static Availability check() {
        synchronized (LOCK) {
            if (availability == null) {
                availability = probeSelf();
            }
            return availability;
        }
    }

    private static Availability probeSelf() {
        String nativeProblem = LinuxCalls.Native.unavailableReason();
        if (nativeProblem != null) {
            return new Availability(false, nativeProblem);
        }
        int scope = yamaScope();
        if (scope >= 2) {
            return new Availability(false, "EPERM: " + YAMA + "=" + scope + " (only administrators may attach)");
        }
        String done = "";
        try (Arena temp = Arena.ofConfined()) {
            MemorySegment state = temp.allocate(LinuxCalls.CALL_STATE);
            if (scope == 1) {
                if (LinuxCalls.prctl(state, LinuxCalls.PR_SET_PTRACER, LinuxCalls.PR_SET_PTRACER_ANY) != 0) {
                    return new Availability(false, LinuxCalls.errnoName(LinuxCalls.errno(state)) + ": " + YAMA
                            + "=1 and prctl(PR_SET_PTRACER) failed");
                }
                done = YAMA + "=1: this process allows its siblings to read it (prctl PR_SET_PTRACER_ANY)";
            }
            int errno = probe(temp, ProcessHandle.current().pid(), probeAddress(), probeValue());
            if (errno != 0) {
                return new Availability(false, LinuxCalls.errnoName(errno) + (errno == LinuxCalls.ENOSYS
                        || errno == LinuxCalls.EPERM ? ": the system call is missing or filtered (seccomp)" : ""));
            }
            return new Availability(true, done);
        }
    }

    /**
     * Reads a peer's probe word through {@code process_vm_readv}.
     *
     * @param pid      the peer
     * @param address  where its probe word is
     * @param expected its value
     * @return 0 when the read worked and found the value; the {@code errno} of a refused read; -1 when the value
     *         differs (another process has that pid)
     */
    static int probePeer(long pid, long address, long expected) {
        try (Arena temp = Arena.ofConfined()) {
            return probe(temp, pid, address, expected);
        }
    }

    private static int probe(Arena temp, long pid, long address, long expected) {
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            return LinuxCalls.ESRCH;
        }
        MemorySegment state = temp.allocate(LinuxCalls.CALL_STATE);
        MemorySegment word = temp.allocate(8, 8);
        MemorySegment local = temp.allocate(LinuxCalls.IOVEC_BYTES, 8);
        MemorySegment remote = temp.allocate(LinuxCalls.IOVEC_BYTES, 8);
        local.set(ValueLayout.JAVA_LONG, 0, word.address());
        local.set(ValueLayout.JAVA_LONG, 8, 8);
        remote.set(ValueLayout.JAVA_LONG, 0, address);
        remote.set(ValueLayout.JAVA_LONG, 8, 8);
        long n = LinuxCalls.processVmReadv(state, (int) pid, local.address(), 1, remote.address(), 1);
        if (n != 8) {
            return n < 0 ? LinuxCalls.errno(state) : LinuxCalls.EFAULT;
        }
        return word.get(ValueLayout.JAVA_LONG, 0) == expected ? 0 : -1;
    }

    /** @return Yama's ptrace scope, or -1 without Yama */
    private static int yamaScope() {
        try {
            return Integer.parseInt(Files.readString(Path.of(YAMA)).strip());
        } catch (IOException | NumberFormatException | SecurityException e) {
            return -1;
        }
    }
}
