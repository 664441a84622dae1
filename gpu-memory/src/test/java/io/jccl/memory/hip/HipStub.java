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

    /**
     * The stub's control functions (and libc's {@code close}), bound on first use: the holder's class initializer
     * runs once, the first time a control is called.
     */
    private static final class Controls {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final SymbolLookup STUB = SymbolLookup.libraryLookup(path(), Arena.global());
        static final MethodHandle FAIL = stub("hipstubFail",
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG));
        static final MethodHandle SET_DEVICE_COUNT = stub("hipstubSetDeviceCount", FunctionDescriptor.ofVoid(JAVA_INT));
        static final MethodHandle SET_ASYNC_IMMEDIATE = stub("hipstubSetAsyncImmediate",
                FunctionDescriptor.ofVoid(JAVA_INT));
        static final MethodHandle LIVE = stub("hipstubLive", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        static final MethodHandle LIVE_HANDLES = stub("hipstubLiveHandles", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        static final MethodHandle CALLS = stub("hipstubCalls", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().find("close").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));

        private static MethodHandle stub(String function, FunctionDescriptor descriptor) {
            return LINKER.downcallHandle(STUB.find(function).orElseThrow(), descriptor);
        }
    }

    /** A call through the stub's handles. */
    @FunctionalInterface
    private interface StubCall<T> {
        T run() throws Throwable;
    }

    /** Runs a call into the stub; its handles throw nothing, so anything thrown is a broken test set-up. */
    private static <T> T call(StubCall<T> body) {
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
                Controls.FAIL.invokeExact(a.allocateFrom(function), error, after, times);
            }
            return null;
        });
    }

    /** Removes every failure rule (nothing to do when the stub was not built: tear-downs call it regardless). */
    public static void clearFailures() {
        controlIfBuilt(() -> {
            Controls.FAIL.invokeExact(MemorySegment.NULL, 0, 0L, 0L);
            return null;
        });
    }

    /** Sets how many devices the stub reports (nothing to do when it was not built). */
    public static void setDeviceCount(int n) {
        controlIfBuilt(() -> {
            Controls.SET_DEVICE_COUNT.invokeExact(n);
            return null;
        });
    }

    /** Makes the stub run asynchronous copies at once, or queue them (nothing to do when it was not built). */
    public static void setAsyncImmediate(boolean immediate) {
        controlIfBuilt(() -> {
            Controls.SET_ASYNC_IMMEDIATE.invokeExact(immediate ? 1 : 0);
            return null;
        });
    }

    /** @return live device allocations ({@link #DEVICE_ALLOCATIONS}) or pinned ranges ({@link #PINNED_RANGES}) */
    public static int live(int kind) {
        return call(() -> (int) Controls.LIVE.invokeExact(kind));
    }

    /** @return live streams (0) or events (1) */
    public static int liveHandles(int kind) {
        return call(() -> (int) Controls.LIVE_HANDLES.invokeExact(kind));
    }

    /** @return how often a HIP function was called since the stub loaded */
    public static long calls(String function) {
        return call(() -> {
            try (Arena a = Arena.ofConfined()) {
                return (long) Controls.CALLS.invokeExact(a.allocateFrom(function));
            }
        });
    }

    /** Closes a file descriptor (the stub's dma-buf stand-ins are real descriptors of /dev/null). */
    public static int closeFd(int fd) {
        return call(() -> (int) Controls.CLOSE.invokeExact(fd));
    }
}
