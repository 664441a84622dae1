package io.jccl.net.shm;

import java.util.Map;

/**
 * The conformance suite and the shm tests again, with large messages copied through the ring in pipelined chunks
 * ({@code JCCL_SHM_LARGE=ring}), the path taken where cross-memory attach is refused, and a small eager limit so that
 * mid-sized messages take it too.
 */
class ShmRingConformanceTest extends ShmTransportConformanceTest {
    @Override
    Map<String, String> baseOptions() {
        return Map.of(ShmOptions.REGISTERED_BYTES, String.valueOf(64 << 20), ShmOptions.LARGE, "ring",
                ShmOptions.EAGER_BYTES, "100");
    }

    @Override
    int expectedMode() {
        return Layout.MODE_RING;
    }
}
