package io.jccl.api;

import io.jccl.CommConfig;
import io.jccl.Communicator;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;

/**
 * In-JVM ranks for one test and the shared arena their buffers come from. After the test every rank is aborted
 * (prompt even when one still waits) before the arena closes, so no rank can touch freed memory. Register it as an
 * instance field with {@code @RegisterExtension}.
 */
final class LocalRanks implements AfterEachCallback {
    private static final long SMALL_BUFFER_BYTES = 4096;

    private final Arena arena = Arena.ofShared();
    private List<Communicator> comms;

    /** Starts {@code n} local ranks with the given operation timeout. */
    List<Communicator> start(int n, Duration opTimeout) {
        comms = Communicator.local(n, CommConfig.builder().opTimeout(opTimeout).build());
        return comms;
    }

    Arena arena() {
        return arena;
    }

    /** A fresh 4 KiB buffer: room for every small call these tests make. */
    MemorySegment buffer() {
        return arena.allocate(SMALL_BUFFER_BYTES);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        CommAssertions.abortAll(comms);
        arena.close();
    }
}
