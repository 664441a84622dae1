package io.jccl.memory.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;

import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** Whether this machine has the NVIDIA driver, for tests of the paths without one. */
final class NvidiaDriver {
    private static Boolean present;

    private NvidiaDriver() {
    }

    /** @return whether the dynamic loader finds {@code libcuda.so.1}, the driver library CUDA's runtime opens */
    static synchronized boolean present() {
        if (present == null) {
            try (Arena a = Arena.ofConfined()) {
                SymbolLookup.libraryLookup("libcuda.so.1", a);
                present = true;
            } catch (IllegalArgumentException e) {
                present = false;
            }
        }
        return present;
    }

    /** Skips the calling test on a machine with the NVIDIA driver: it checks what happens without one. */
    static void assumeAbsent() {
        assumeFalse(present(), "this machine has the NVIDIA driver (libcuda.so.1): the test checks the paths "
                + "without one");
    }
}
