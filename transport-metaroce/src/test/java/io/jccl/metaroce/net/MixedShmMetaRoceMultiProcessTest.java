package io.jccl.metaroce.net;

import io.jccl.net.shm.ShmRankMain;
import io.jccl.testing.JvmProcesses.Jvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The automatic transport choice of a mixed job, with every transport on the class path as in a real deployment:
 * 4 JVMs posing as two hosts ({@code JCCL_HOST_ID}). Pairs on
 * the same "host" must use shm, pairs across "hosts" MetaRoCE (priority 20, above tcp's 10), and every collective
 * must be exact. Each rank logs its transport per peer, which the test checks.
 */
@Tag("integration")
class MixedShmMetaRoceMultiProcessTest {
    /** 1 MiB of floats per rank: large shm messages and several MetaRoCE messages per collective, and chunking. */
    private static final long COUNT = (1 << 18) + 3;

    @Test
    void sameHostPairsUseShmAndTheOthersMetaRoceAndEveryCollectiveIsExact() throws Exception {
        List<Jvm> ranks = ShmRankMain.startJob(4, COUNT, r -> Map.of("JCCL_HOST_ID", r < 2 ? "host-a" : "host-b"),
                "mixed-shm-metaroce");
        String[] expected = {"[null, shm, metaroce, metaroce]", "[shm, null, metaroce, metaroce]",
                "[metaroce, metaroce, null, shm]", "[metaroce, metaroce, shm, null]"};
        for (int r = 0; r < 4; r++) {
            assertThat(ShmRankMain.assertRankPassed(ranks.get(r), r, 120))
                    .contains("transport per peer " + expected[r]);
        }
    }
}
