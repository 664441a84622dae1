package io.jccl.process;

import io.jccl.UniqueId;
import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real JVM processes joined through the TCP rendezvous, running collectives over the TCP transport; and a
 * process with the wrong secret, which is refused while the others are not disturbed.
 */
@Tag("integration")
class MultiProcessTest {
    @Test
    void threeProcessesRunExactCollectivesAndAnImpostorIsRefused() throws Exception {
        UniqueId id = UniqueId.create();
        byte[] wrongSecret = id.secretBytes();
        wrongSecret[0] ^= 1;
        UniqueId impostorId = UniqueId.of(id.address(), wrongSecret);

        // The impostor knocks at the same time as the real ranks, claiming rank 1.
        Jvm impostor = JvmProcesses.start(RankMain.class, List.of("1", "3", "1000"),
                Map.of("JCCL_TEST_UNIQUE_ID", impostorId.encode()), "impostor");
        List<Jvm> ranks = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            ranks.add(JvmProcesses.start(RankMain.class, List.of(Integer.toString(r), "3"),
                    Map.of("JCCL_TEST_UNIQUE_ID", id.encode()), "rank" + r));
        }
        for (int r = 0; r < 3; r++) {
            Jvm jvm = ranks.get(r);
            int code = jvm.await(180);
            assertThat(code).as("rank %d exit code; output:%n%s", r, jvm.outputText()).isZero();
            assertThat(jvm.outputText()).contains("RESULT OK").contains("ALL_REDUCE FLOAT32 count=1048579 wrong=0")
                    .contains("ALL_TO_ALL BFLOAT16");
        }
        assertThat(impostor.await(120)).as("impostor exit code; output:%n%s", impostor.outputText()).isEqualTo(3);
        assertThat(impostor.outputText()).contains("JOIN_FAILED REMOTE_ERROR").containsIgnoringCase("authentication");
    }
}
