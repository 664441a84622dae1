package io.jccl.metaroce.net;

import io.jccl.UniqueId;
import io.jccl.net.shm.ShmRankMain;
import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
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
        UniqueId id = UniqueId.create();
        List<String> jvmOptions = new ArrayList<>(JvmProcesses.inheritedJvmOptions());
        jvmOptions.add("-Dorg.slf4j.simpleLogger.log.io.jccl.core.CommInit=debug");
        List<Jvm> ranks = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            Map<String, String> env = new HashMap<>();
            env.put("JCCL_TEST_UNIQUE_ID", id.encode());
            env.put("JCCL_DEBUG", "DEBUG");   // the per-peer transport line is a DEBUG line of INIT
            env.put("JCCL_HOST_ID", r < 2 ? "host-a" : "host-b");
            ranks.add(JvmProcesses.start(ShmRankMain.class, List.of(Integer.toString(r), "4", Long.toString(COUNT)),
                    env, "mixed-shm-metaroce-rank" + r, jvmOptions));
        }
        String[] expected = {"[null, shm, metaroce, metaroce]", "[shm, null, metaroce, metaroce]",
                "[metaroce, metaroce, null, shm]", "[metaroce, metaroce, shm, null]"};
        for (int r = 0; r < 4; r++) {
            Jvm jvm = ranks.get(r);
            int code = jvm.await(120);
            String out = jvm.outputText();
            assertThat(code).as("rank %d exit code; output:%n%s", r, out).isZero();
            assertThat(out).contains("RESULT OK").contains("transport per peer " + expected[r]);
            for (String kind : List.of("ALL_REDUCE", "BROADCAST", "REDUCE", "ALL_GATHER", "REDUCE_SCATTER",
                    "ALL_TO_ALL", "ALL_TO_ALLV", "GATHER", "SCATTER", "P2P")) {
                assertThat(out).as("rank %d", r).contains(kind + " wrong=0");
            }
        }
    }
}
