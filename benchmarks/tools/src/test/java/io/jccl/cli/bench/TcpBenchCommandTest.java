package io.jccl.cli.bench;

import io.jccl.cli.CliRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code jccl bench tcp}: a tiny run's JSON and table, and usage errors naming the flag. */
@Tag("integration")
class TcpBenchCommandTest {
    @Test
    @SuppressWarnings("unchecked")
    void tinyRunGivesOneResultPerSizeAndSocketCount() {
        CliRun r = CliRun.of("bench", "tcp", "-b", "64K,256K", "--nsocks", "1,3", "--total", "2M", "--repeat", "2",
                "--pingpong", "200", "-O", "JCCL_SOCKET_MIN_STRIPE_BYTES=4096", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out().strip()).startsWith("{").endsWith("}").doesNotContain("\n");
        Map<String, Object> j = (Map<String, Object>) CliRun.parseJson(r.out());
        List<Map<String, Object>> results = (List<Map<String, Object>>) j.get("results");
        assertThat(results).hasSize(4);
        assertThat(results.get(0)).containsEntry("bytes", 65536.0).containsEntry("nsocks", 1.0)
                .containsEntry("messages", 32.0);
        assertThat(results.get(3)).containsEntry("bytes", 262144.0).containsEntry("nsocks", 3.0)
                .containsEntry("messages", 16.0);
        for (Map<String, Object> res : results) {
            // Loopback moves somewhere between 1 MB/s (a very busy machine) and 1 TB/s.
            assertThat((Double) res.get("tcpMedianBytesPerSec")).isBetween(1e6, 1e12);
            assertThat((Double) res.get("rawMedianBytesPerSec")).isBetween(1e6, 1e12);
        }
        assertThat(j).containsEntry("measure", "wall");
        List<Map<String, Object>> pingPong = (List<Map<String, Object>>) j.get("pingPong");
        assertThat(pingPong).hasSize(2);
        assertThat((Double) pingPong.get(1).get("medianRoundTripNs")).isPositive();
    }

    @Test
    @SuppressWarnings("unchecked")
    void cpuModeDrivesBothEndsFromOneThread() {
        CliRun r = CliRun.of("bench", "tcp", "-b", "1M", "--nsocks", "2", "--total", "8M", "--repeat", "1",
                "--pingpong", "0", "--cpu", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        Map<String, Object> j = (Map<String, Object>) CliRun.parseJson(r.out());
        assertThat(j).containsEntry("measure", "cpu");
        Map<String, Object> res = ((List<Map<String, Object>>) j.get("results")).getFirst();
        assertThat((Double) res.get("tcpMedianBytesPerSec")).isBetween(1e6, 1e12);
        assertThat((Double) res.get("rawMedianBytesPerSec")).isBetween(1e6, 1e12);
    }

    @Test
    void tableNamesTheColumnsAndTheCheck() {
        CliRun r = CliRun.of("bench", "tcp", "-b", "8K", "--nsocks", "2", "--total", "1M", "--repeat", "1",
                "--pingpong", "0", "--no-raw");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("tcp GB/s median [range]").contains("last message of every run checked")
                .doesNotContain("ping-pong");
    }

    @Test
    void progressForcesABarOfTheTimedRunsOnStandardErrorAndLeavesTheTableAlone() {
        CliRun r = CliRun.of("bench", "tcp", "-b", "8K", "--nsocks", "1,2", "--total", "1M", "--repeat", "1",
                "--pingpong", "100", "--no-raw", "--progress");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("jccl bench tcp 100%").contains("4/4 runs");   // 2 cells + 2 ping-pongs
        assertThat(r.out()).doesNotContain("\r").contains("tcp GB/s median [range]");
    }

    @Test
    void usageErrorsExitWithTwoAndNameTheFlag() {
        String[][] bad = {{"--nsocks", "17"}, {"--nsocks", "0"}, {"--window", "65"}, {"--repeat", "0"},
            {"-b", "0"}, {"--buffer-bytes", "100"}, {"-O", "NOPE=1"}};
        String[] why = {"--nsocks", "--nsocks", "--window", "--repeat", "--bytes", "--buffer-bytes", "-O"};
        UsageErrors.assertEach(new String[] {"bench", "tcp"}, bad, why);
    }

    @Test
    void badTransportOptionFailsNamingIt() {
        CliRun r = CliRun.of("bench", "tcp", "-b", "8K", "--total", "1M", "--repeat", "1", "--pingpong", "0",
                "-O", "JCCL_SOCKET_MIN_STRIPE_BYTES=12");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("JCCL_SOCKET_MIN_STRIPE_BYTES='12'");
    }
}
