package io.jccl.net.aeronipc;

import static org.assertj.core.api.Assertions.assertThat;

import io.jccl.net.shm.ShmRankMain;
import io.jccl.testing.JvmProcesses.Jvm;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real JVMs on this host running every collective with exact checks over {@code JCCL_NET=aeron-ipc} (the
 * Aeron IPC transport is only used when named), on a media driver directory of the test's own. Each rank logs its
 * transport per peer, which the test checks.
 */
@Tag("integration")
class AeronIpcMultiProcessTest {
    /** 1 MiB of floats per rank for the full-size collectives: several 64 KiB frames per message, and chunking. */
    private static final long COUNT = (1 << 18) + 3;

    @TempDir
    Path temp;

    @Test
    void twoJvmsRunEveryCollectiveExactlyOverAeronIpc() throws Exception {
        int size = 2;
        List<Jvm> ranks = ShmRankMain.startJob(size, COUNT, r -> Map.of(
                "JCCL_AERON_IPC_DIR", temp.resolve("aeron").toString(),
                "JCCL_AERON_IPC_TERM_BYTES", String.valueOf(4 << 20),
                "JCCL_NET", "aeron-ipc"), "aeron-ipc-n" + size);
        for (int r = 0; r < size; r++) {
            String out = ShmRankMain.assertRankPassed(ranks.get(r), r, 120);
            assertThat(out).contains("transport per peer [" + (r == 0 ? "null, aeron-ipc" : "aeron-ipc, null") + "]");
        }
    }
}
