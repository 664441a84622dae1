package io.jccl.memory.hip;

import io.jccl.memory.RuntimeLoad;

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
        RuntimeLoad<HipRuntime> load = HipLibrary.shared();
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

    /** A call through the stub's handles. */
    @FunctionalInterface
    private interface StubCall<T> {
        T run() throws Throwable;
    }

    /** Runs a call into the stub; its handles throw nothing, so anything thrown is a broken test set-up. */
    private static <T> T call(StubCall<T> body) {
        bind();
        try {
            return body.run();
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** A control call into the stub, which tear-downs make regardless: nothing to do when it was not built. */
    private static void controlIfBuilt(StubCall<Void> body) {
        if (built()) {
            call(body);
        }
    }

    /**
     * From the next call on, {@code function} (or hipMemcpy.HostToDevice / .DeviceToHost / .DeviceToDevice)
     * succeeds {@code after} more times, then fails with {@code error} {@code times} times (negative: forever).
     */
    public static void fail(String function, int error, long after, long times) {
        call(() -> {
            try (Arena a = Arena.ofConfined()) {
                fail.invokeExact(a.allocateFrom(function), error, after, times);
            }
            return null;
        });
    }

    /** Removes every failure rule (nothing to do when the stub was not built: tear-downs call it regardless). */
    public static void clearFailures() {
        controlIfBuilt(() -> {
            fail.invokeExact(MemorySegment.NULL, 0, 0L, 0L);
            return null;
        });
    }

    /** Sets how many devices the stub reports (nothing to do when it was not built). */
    public static void setDeviceCount(int n) {
        controlIfBuilt(() -> {
            setDeviceCount.invokeExact(n);
            return null;
        });
    }

    /** Makes the stub run asynchronous copies at once, or queue them (nothing to do when it was not built). */
    public static void setAsyncImmediate(boolean immediate) {
        controlIfBuilt(() -> {
            setAsyncImmediate.invokeExact(immediate ? 1 : 0);
            return null;
        });
    }

    /** @return live device allocations ({@link #DEVICE_ALLOCATIONS}) or pinned ranges ({@link #PINNED_RANGES}) */
    public static int live(int kind) {
        return call(() -> (int) live.invokeExact(kind));
    }

    /** @return live streams (0) or events (1) */
    public static int liveHandles(int kind) {
        return call(() -> (int) liveHandles.invokeExact(kind));
    }

    /** @return how often a HIP function was called since the stub loaded */
    public static long calls(String function) {
        return call(() -> {
            try (Arena a = Arena.ofConfined()) {
                return (long) calls.invokeExact(a.allocateFrom(function));
            }
        });
    }

    /** Closes a file descriptor (the stub's dma-buf stand-ins are real descriptors of /dev/null). */
    public static int closeFd(int fd) {
        return call(() -> (int) close.invokeExact(fd));
    }
}
