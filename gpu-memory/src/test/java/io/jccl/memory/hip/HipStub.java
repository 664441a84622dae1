package io.jccl.memory.hip;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The HIP stub (src/test/native/hipstub.c, built by the build into target/native/libhipstub.so and named by the
 * {@code jccl.hip.library} property surefire sets): where it is, whether it was built, and its test-only controls
 * (failure injection, device count, counters). The controls act on the same loaded library as the bindings: the
 * dynamic loader hands out one copy per path.
 */
public final class HipStub {
    /** HIPSTUB_DEVICES surefire sets. */
    public static final int DEVICES = 2;
    /** hipstubLive kinds. */
    public static final int DEVICE_ALLOCATIONS = 0;
    public static final int PINNED_RANGES = 1;

    private static MethodHandle fail;
    private static MethodHandle setDeviceCount;
    private static MethodHandle setAsyncImmediate;
    private static MethodHandle live;
    private static MethodHandle liveHandles;
    private static MethodHandle calls;
    private static MethodHandle close;

    private HipStub() {
    }

    /** @return the stub's path from the {@code jccl.hip.library} property, or null */
    public static Path path() {
        String p = System.getProperty(HipLibrary.PROPERTY);
        return p == null ? null : Path.of(p);
    }

    /** @return whether the build compiled the stub */
    public static boolean built() {
        Path p = path();
        return p != null && Files.isRegularFile(p);
    }

    /** Skips the calling test, saying why, when the stub was not built (no gcc, or not Linux). */
    public static void assumeBuilt() {
        assumeTrue(built(), "the HIP stub was not built (" + path() + " missing: no gcc on the PATH, or not "
                + "Linux); skipping the tests that run the HIP bindings against it");
        bind();
    }

    /** @return the JVM's shared HIP runtime, loaded from the stub */
    public static HipRuntime runtime() {
        assumeBuilt();
        HipLibrary.Load load = HipLibrary.shared();
        if (!load.loaded()) {
            throw new AssertionError("the stub was built but does not load: " + load.reason());
        }
        return load.runtime();
    }

    private static synchronized void bind() {
        if (fail != null) {
            return;
        }
        Linker linker = Linker.nativeLinker();
        SymbolLookup lib = SymbolLookup.libraryLookup(path(), Arena.global());
        fail = linker.downcallHandle(lib.find("hipstubFail").orElseThrow(),
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG));
        setDeviceCount = linker.downcallHandle(lib.find("hipstubSetDeviceCount").orElseThrow(),
                FunctionDescriptor.ofVoid(JAVA_INT));
        setAsyncImmediate = linker.downcallHandle(lib.find("hipstubSetAsyncImmediate").orElseThrow(),
                FunctionDescriptor.ofVoid(JAVA_INT));
        live = linker.downcallHandle(lib.find("hipstubLive").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        liveHandles = linker.downcallHandle(lib.find("hipstubLiveHandles").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        calls = linker.downcallHandle(lib.find("hipstubCalls").orElseThrow(),
                FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        close = linker.downcallHandle(linker.defaultLookup().find("close").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }

    /**
     * From the next call on, {@code function} (or hipMemcpy.HostToDevice / .DeviceToHost / .DeviceToDevice)
     * succeeds {@code after} more times, then fails with {@code error} {@code times} times (negative: forever).
     */
    public static void fail(String function, int error, long after, long times) {
        bind();
        try (Arena a = Arena.ofConfined()) {
            fail.invokeExact(a.allocateFrom(function), error, after, times);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Removes every failure rule (nothing to do when the stub was not built: tear-downs call it regardless). */
    public static void clearFailures() {
        if (!built()) {
            return;
        }
        bind();
        try {
            fail.invokeExact(MemorySegment.NULL, 0, 0L, 0L);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Sets how many devices the stub reports (nothing to do when it was not built). */
    public static void setDeviceCount(int n) {
        if (!built()) {
            return;
        }
        bind();
        try {
            setDeviceCount.invokeExact(n);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Makes the stub run asynchronous copies at once, or queue them (nothing to do when it was not built). */
    public static void setAsyncImmediate(boolean immediate) {
        if (!built()) {
            return;
        }
        bind();
        try {
            setAsyncImmediate.invokeExact(immediate ? 1 : 0);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** @return live device allocations ({@link #DEVICE_ALLOCATIONS}) or pinned ranges ({@link #PINNED_RANGES}) */
    public static int live(int kind) {
        bind();
        try {
            return (int) live.invokeExact(kind);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** @return live streams (0) or events (1) */
    public static int liveHandles(int kind) {
        bind();
        try {
            return (int) liveHandles.invokeExact(kind);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** @return how often a HIP function was called since the stub loaded */
    public static long calls(String function) {
        bind();
        try (Arena a = Arena.ofConfined()) {
            return (long) calls.invokeExact(a.allocateFrom(function));
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Closes a file descriptor (the stub's dma-buf stand-ins are real descriptors of /dev/null). */
    public static int closeFd(int fd) {
        bind();
        try {
            return (int) close.invokeExact(fd);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
