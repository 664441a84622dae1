package io.jccl.net.shm;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance suite and the shm tests again with large messages read by cross-memory attach
 * ({@code JCCL_SHM_LARGE=cma}), every large message whether or not its sender asked for a single copy; skipped where
 * the kernel refuses {@code process_vm_readv} (then {@link ShmRingConformanceTest} covers what runs there).
 */
class ShmCrossMemoryConformanceTest extends ShmTransportConformanceTest {
    @BeforeAll
    static void crossMemoryAttachWorksHere() {
        CrossMemory.Availability cma = CrossMemory.check();
        assumeTrue(cma.usable(), "process_vm_readv is refused here: " + cma.reason());
    }

    @Override
    Map<String, String> baseOptions() {
        return Map.of(ShmOptions.REGISTERED_BYTES, String.valueOf(64 << 20), ShmOptions.LARGE, "cma");
    }

    @Override
    int expectedMode() {
        return Layout.MODE_CMA;
    }
}
