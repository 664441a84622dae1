package io.jccl.env;

import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Real JVMs join with {@code Communicator.fromEnvironment()}: from torchrun-style variables on 127.0.0.1, and under
 * Open MPI's mpirun when it is installed (the default id file named after the job).
 */
@Tag("integration")
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

    @Test
    void twoJvmsUnderOpenMpiMeetThroughTheDefaultIdFile() throws Exception {
        Path mpirun = null;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "mpirun"))) {
                mpirun = Path.of(dir, "mpirun");
                break;
            }
        }
        assumeTrue(mpirun != null, "mpirun is not installed");
        List<String> cmd = new ArrayList<>(List.of(mpirun.toString(), "--allow-run-as-root", "--oversubscribe",
                "-np", "2", "-x", "JCCL_NET=tcp", "-x", "JCCL_INIT_TIMEOUT_MS=60000",
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(JvmProcesses.inheritedJvmOptions());
        cmd.addAll(List.of("-Xmx256m", "-cp", System.getProperty("java.class.path"), EnvRankMain.class.getName()));
        Path log = Path.of("target", "process-output", "env-openmpi.log");
        Files.createDirectories(log.getParent());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Jvm mpi = new Jvm(p, log);
        assertThat(mpi.await(120)).as("mpirun; output:%n%s", mpi.outputText()).isZero();
        assertThat(mpi.outputText()).contains("RESULT OK rank 0 of 2 (openmpi)", "RESULT OK rank 1 of 2 (openmpi)");
    }
}
