package io.jccl.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;

@Tag("integration")
class MainTest {
    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    @Test
    void versionNamesJcclJavaAndTransports() {
        CliRun r = run("version");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("JCCL ").contains("Java 25").contains("local").contains("tcp");
    }

    @Test
    void selftestRunsEveryCollectiveExactly() {
        CliRun r = run("selftest", "-np", "3", "--bytes", "96K", "--iters", "2", "--warmup", "1");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        for (String c : new String[] {"allreduce", "broadcast", "reduce", "allgather", "reducescatter", "alltoall",
                "alltoallv", "gather", "scatter", "sendrecv", "barrier"}) {
            assertThat(r.out()).contains("  " + c + " ");
        }
        assertThat(r.out()).contains("All results exact.");
    }

    @Test
    void selftestOverTcpWithAnotherTypeAndOp() {
        CliRun r = run("selftest", "-np", "2", "--bytes", "8K", "--iters", "1", "--warmup", "0", "--transport", "tcp",
                "--type", "bf16", "--op", "max");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("over tcp").contains("bfloat16").contains("All results exact.");
    }

    @Test
    void badArgumentsAreUsageErrors() {
        assertThat(run("selftest", "--type", "float128").code()).isEqualTo(2);
        assertThat(run("selftest", "--bytes", "lots").code()).isEqualTo(2);
        CliRun r = run("selftest", "-np", "0");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("-np must be between 1 and 256");
        assertThat(run("nosuchcommand").code()).isEqualTo(2);
    }
}
