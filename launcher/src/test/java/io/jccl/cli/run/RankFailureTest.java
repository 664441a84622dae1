package io.jccl.cli.run;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failure drill with real processes: {@code jccl run -np 4 --keep-going} of {@link FailureDrillMain},
 * whose rank 1 kills itself with SIGKILL in the middle of an all-reduce. Every survivor's pending all-reduce must
 * fail with REMOTE_ERROR (the operation timeout is the default five minutes and the test waits at most two, so a
 * failure that arrives came from liveness or a lost connection, never from the timeout), asyncError must report
 * it, the three survivors must shrink to a working communicator with exact results, and the launcher must exit
 * non-zero naming rank 1 and SIGKILL. Once per transport: automatic (shm on this host), tcp and metaroce (where
 * nothing breaks a connection, so the peer timeout of 2 s is what notices).
 */
@Tag("integration")
class RankFailureTest {
    @ParameterizedTest(name = "transport {0}")
    @ValueSource(strings = {"auto", "tcp", "metaroce"})
    void survivorsFailPromptlyAndShrinkToAWorkingCommunicator(String transport) throws Exception {
        RunCommandTest.Result r = new RunCommandTest.Launcher(Map.of(), List.of("-np", "4", "--keep-going",
                "--transport", transport, "-x", "JCCL_PEER_TIMEOUT_MS=2000", "--",
                "io.jccl.cli.run.FailureDrillMain", "1", "1048576")).await(120);

        assertThat(r.code()).as(r.toString()).isEqualTo(137);
        assertThat(r.errText()).as(r.toString())
                .containsPattern("jccl run: rank 1 \\(pid \\d+ on localhost\\) was killed by signal 9 \\(SIGKILL\\)")
                .contains("1 of 4 ranks failed");
        assertThat(r.out()).as(r.toString())
                .contains("[1] rank 1: killing myself with SIGKILL in the middle of an all-reduce");
        int newRank = 0;
        for (int survivor : new int[] {0, 2, 3}) {
            String prefix = "[" + survivor + "] rank " + survivor + ": ";
            assertThat(r.out()).as(r.toString())
                    .anySatisfy(l -> assertThat(l).startsWith(prefix + "pending all-reduce failed after")
                            .contains("with REMOTE_ERROR: ").contains("rank 1 (pid "))
                    .contains(prefix + "asyncError REMOTE_ERROR")
                    .anySatisfy(l -> assertThat(l).startsWith(prefix + "shrunk to rank ")
                            .contains(" of 3 in ").contains("all-reduce of 1048576 floats exact"));
            int expected = newRank++;
            assertThat(r.out()).anySatisfy(l -> assertThat(l).startsWith(prefix + "shrunk to rank " + expected + " "));
        }
    }
}
