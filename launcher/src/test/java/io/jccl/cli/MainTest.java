package io.jccl.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class MainTest {
    private record Run(int code, String out, String err) {
    }

    private static synchronized Run run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int code = Main.execute(args);
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    @Test
    void versionNamesJcclJavaAndTransports() {
        Run r = run("version");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("JCCL ").contains("Java 25").contains("local").contains("tcp");
    }

    @Test
    void selftestRunsEveryCollectiveExactly() {
        Run r = run("selftest", "-np", "3", "--bytes", "96K", "--iters", "2", "--warmup", "1");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        for (String c : new String[] {"allreduce", "broadcast", "reduce", "allgather", "reducescatter", "alltoall",
                "alltoallv", "gather", "scatter", "sendrecv", "barrier"}) {
            assertThat(r.out()).contains("  " + c + " ");
        }
        assertThat(r.out()).contains("All results exact.");
    }

    @Test
    void selftestOverTcpWithAnotherTypeAndOp() {
        Run r = run("selftest", "-np", "2", "--bytes", "8K", "--iters", "1", "--warmup", "0", "--transport", "tcp",
                "--type", "bf16", "--op", "max");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("over tcp").contains("bfloat16").contains("All results exact.");
    }

    @Test
    void badArgumentsAreUsageErrors() {
        assertThat(run("selftest", "--type", "float128").code()).isEqualTo(2);
        assertThat(run("selftest", "--bytes", "lots").code()).isEqualTo(2);
        Run r = run("selftest", "-np", "0");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("-np must be between 1 and 256");
        assertThat(run("nosuchcommand").code()).isEqualTo(2);
    }
}
