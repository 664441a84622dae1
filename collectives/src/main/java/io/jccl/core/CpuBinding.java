package io.jccl.core;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Binds the thread that calls a communicator's operations to its rank's share of the CPUs ({@code
 * JCCL_CPU_BIND=share}), as {@code mpirun} binds each rank process, and keeps JCCL's own threads off that binding.
 * On a host with as many cores as ranks, a rank's caller spins on a core while its peers answer; unbound, the
 * scheduler moves a caller that a helper thread (the JIT, the executor, a transport's driver) preempted onto the core
 * of another rank's caller, and the two then share it in slices of milliseconds while each waits for the other's
 * message (docs/performance.md). Bound, a preempted caller waits for the helper alone.
 *
 * <p>Linux only ({@code sched_setaffinity}); elsewhere, or without native access for this module, nothing is
 * bound. Threads a bound thread creates inherit its CPU (as every thread of a bound MPI process has it); JCCL's own
 * threads call {@link #releaseInherited()} as they start and run on the CPUs the process had.
 */
public final class CpuBinding {
    /** Bytes of the CPU mask passed to the kernel: 1,024 CPUs, glibc's {@code cpu_set_t}. */
    private static final int MASK_BYTES = 128;
    private static final MethodHandle GET_AFFINITY = lookup("sched_getaffinity");
    private static final MethodHandle SET_AFFINITY = lookup("sched_setaffinity");
    /** The CPUs the binding thread could run on before it was bound (what JCCL's threads go back to); null: none. */
    private static volatile long[] unboundMask;

    private CpuBinding() {
    }

    private static MethodHandle lookup(String name) {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
                || !CpuBinding.class.getModule().isNativeAccessEnabled()) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find(name).map(address -> linker.downcallHandle(address,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                            ValueLayout.ADDRESS))).orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** @return whether this JVM can bind threads (Linux, native access granted) */
    public static boolean supported() {
        return GET_AFFINITY != null && SET_AFFINITY != null;
    }

    /**
     * @return how many CPUs the calling thread may run on (those it had before a binding of this class, if any);
     *         {@link Runtime#availableProcessors()} when unknown
     */
    public static int allowedCpus() {
        long[] mask = supported() ? unboundOrCurrentMask() : null;
        if (mask == null) {
            return Runtime.getRuntime().availableProcessors();
        }
        int count = 0;
        for (long word : mask) {
            count += Long.bitCount(word);
        }
        return count;
    }

    /**
     * Binds the calling thread to the {@code index}-th of {@code shares} equal shares of the CPUs it may run on
     * (counted from the lowest; CPUs left over by the division belong to no share). A thread bound before, by this
     * class, is bound anew among the CPUs it had then.
     *
     * @param index  which share; for a rank, its index among its host's ranks
     * @param shares how many shares; for a rank, the number of ranks on its host (at most the CPUs allowed)
     * @return the lowest CPU of the share, or -1 when nothing was bound (not supported, more shares than CPUs, or the
     *         kernel refused)
     */
    public static int bindCurrentThread(int index, int shares) {
        if (!supported() || index < 0 || shares < 1 || index >= shares) {
            return -1;
        }
        long[] allowed = unboundOrCurrentMask();
        if (allowed == null) {
            return -1;
        }
        int count = 0;
        for (long word : allowed) {
            count += Long.bitCount(word);
        }
        if (count < shares) {
            return -1;
        }
        int perShare = count / shares;
        int cpu = nthSetBit(allowed, index * perShare);
        long[] share = new long[allowed.length];
        for (int i = 0; i < perShare; i++) {
            int c = nthSetBit(allowed, index * perShare + i);
            share[c >>> 6] |= 1L << (c & 63);
        }
        if (!setMask(share)) {
            return -1;
        }
        if (unboundMask == null) {
            unboundMask = allowed;
        }
        return cpu;
    }

    /**
     * Called by JCCL's threads as they start: when a thread of this JVM was bound, gives the calling thread back the
     * CPUs that thread had (it inherited the binding from its creator). Nothing otherwise.
     */
    public static void releaseInherited() {
        long[] mask = unboundMask;
        if (mask != null) {
            setMask(mask);
        }
    }

    /** @return {@code task} run by a thread that first gives up a binding inherited from its creator */
    public static Runnable unbound(Runnable task) {
        return () -> {
            releaseInherited();
            task.run();
        };
    }

    /** @return the CPUs the first binding of this JVM started from, else the calling thread's */
    private static long[] unboundOrCurrentMask() {
        long[] mask = unboundMask;
        return mask != null ? mask : currentMask();
    }

    /** @return the calling thread's allowed CPUs as words of 64; null when the kernel refused */
    static long[] currentMask() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(MASK_BYTES, 8);
            if ((int) GET_AFFINITY.invokeExact(0, (long) MASK_BYTES, m) != 0) {
                return null;
            }
            return m.toArray(ValueLayout.JAVA_LONG);
        } catch (Throwable e) {
            return null;
        }
    }

    private static boolean setMask(long[] mask) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocateFrom(ValueLayout.JAVA_LONG, mask);
            return (int) SET_AFFINITY.invokeExact(0, (long) MASK_BYTES, m) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    private static int nthSetBit(long[] mask, int n) {
        int seen = 0;
        for (int w = 0; w < mask.length; w++) {
            long word = mask[w];
            while (word != 0) {
                int bit = Long.numberOfTrailingZeros(word);
                if (seen++ == n) {
                    return w * 64 + bit;
                }
                word &= word - 1;
            }
        }
        throw new IllegalStateException("fewer than " + (n + 1) + " CPUs in the mask");
    }
}
