package io.jccl.env;

import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Real JVMs join with {@code Communicator.fromEnvironment()} from torchrun-style variables on 127.0.0.1. */
class FromEnvironmentProcessTest {
    @Test
    void threeJvmsWithTorchrunVariablesAllReduceExactly() throws Exception {
        int masterPort;
        // A free port whose successor is free too: rank 0 listens on MASTER_PORT + 1.
        try (ServerSocket s = new ServerSocket(0)) {
            masterPort = s.getLocalPort() - 1;
        }
        List<Jvm> ranks = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            ranks.add(JvmProcesses.start(EnvRankMain.class, List.of(), Map.of("RANK", "" + r, "WORLD_SIZE", "3",
                    "LOCAL_RANK", "" + r, "LOCAL_WORLD_SIZE", "3", "MASTER_ADDR", "127.0.0.1",
                    "MASTER_PORT", "" + masterPort, "TORCHELASTIC_RUN_ID", "test-" + masterPort,
                    "JCCL_INIT_TIMEOUT_MS", "60000", "JCCL_NET", "tcp"), "env-torchrun-rank" + r));
        }
        for (int r = 0; r < 3; r++) {
            Jvm jvm = ranks.get(r);
            assertThat(jvm.await(120)).as("rank %d; output:%n%s", r, jvm.outputText()).isZero();
            assertThat(jvm.outputText()).contains("RESULT OK rank " + r + " of 3 (torchrun)")
                    .contains("JCCL_SECRET is not set");
        }
    }
}
