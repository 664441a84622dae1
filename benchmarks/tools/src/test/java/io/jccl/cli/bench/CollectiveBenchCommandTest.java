package io.jccl.cli.bench;

import io.jccl.cli.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code jccl bench collective} with real rank JVMs: exact results, the JSON form, clear errors, no orphans. */
@Tag("integration")
class CollectiveBenchCommandTest {
    @AfterEach
    void noRankOutlivesTheRun() {
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().commandLine().orElse("").contains(CollectiveBenchRank.class.getName())))
                .isEmpty();
    }

    /** The table's data lines, split into columns. */
    private static List<String[]> rows(String out) {
        return out.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).map(l -> l.trim().split("\\s+")).toList();
    }

    @Test
    void twoRankJvmsOverTcpGiveExactResultsInNcclTestsColumns() {
        CliRun r = CliRun.of("bench", "collective", "-np", "2", "--net", "tcp", "--bytes", "64K,96K", "--iters", "2",
                "--warmup", "1", "--warmup-ms", "0");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("2 ranks, each a JVM", "over tcp", "float32 sum")
                .contains("size(B)", "count", "type", "redop", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong")
                .contains("# All results exact.");
        List<String[]> rows = rows(r.out());
        assertThat(rows).hasSize(2);
        long[] sizes = {65536, 98304};
        for (int i = 0; i < rows.size(); i++) {
            String[] c = rows.get(i);
            assertThat(c).as(Arrays.toString(c)).hasSize(8);
            assertThat(Long.parseLong(c[0])).isEqualTo(sizes[i]);
            assertThat(Long.parseLong(c[1])).isEqualTo(sizes[i] / 4);
            assertThat(c[2]).isEqualTo("float32");
            assertThat(c[3]).isEqualTo("sum");
            assertThat(Double.parseDouble(c[4])).isPositive();
            // Two ranks: busbw = algbw * 2(n-1)/n = algbw.
            assertThat(c[6]).isEqualTo(c[5]);
            assertThat(c[7]).isEqualTo("0");
        }
    }

    @Test
    void progressForcesABarOfTheSizesAndTheTableKeepsItsRows() {
        CliRun r = CliRun.of("bench", "collective", "-np", "2", "--net", "tcp", "--bytes", "64K,96K", "--iters", "1",
                "--warmup", "0", "--warmup-ms", "0", "--progress");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("jccl bench collective 100%").contains("2/2 sizes");
        assertThat(rows(r.out())).hasSize(2);
        assertThat(r.out()).doesNotContain("\r");
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonIsOneObjectWithEverySize() {
        CliRun r = CliRun.of("bench", "collective", "-np", "2", "--net", "tcp", "--bytes", "64K", "--iters", "2",
                "--warmup", "1", "--warmup-ms", "0", "--type", "int32", "--op", "max", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out().strip()).startsWith("{").endsWith("}").doesNotContain("\n");
        Map<String, Object> j = (Map<String, Object>) CliRun.parseJson(r.out());
        assertThat(j).containsEntry("collective", "allreduce").containsEntry("ranks", 2.0).containsEntry("net", "tcp")
                .containsEntry("type", "int32").containsEntry("op", "max").containsEntry("wrong", 0.0);
        List<Map<String, Object>> results = (List<Map<String, Object>>) j.get("results");
        assertThat(results).hasSize(1);
        Map<String, Object> row = results.getFirst();
        assertThat(row.keySet()).containsExactly("bytes", "count", "timeUs", "algbwGBps", "busbwGBps", "wrong");
        assertThat(row).containsEntry("bytes", 65536.0).containsEntry("count", 16384.0).containsEntry("wrong", 0.0);
        assertThat((Double) row.get("timeUs")).isPositive();
        assertThat(row.get("busbwGBps")).isEqualTo(row.get("algbwGBps"));
    }

    @Test
    void aFailingRankFailsTheRunWithItsOutput() {
        // The in-JVM transport cannot connect two processes: both ranks fail to join.
        CliRun r = CliRun.of("bench", "collective", "-np", "2", "--net", "local", "--bytes", "64K", "--iters", "1");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("jccl bench collective: rank", "exited with status 1", "--- rank 0 (pid",
                "--- rank 1 (pid", "cannot connect rank 0 and rank 1");
        assertThat(rows(r.out())).isEmpty();
    }

    @Test
    void badOptionsAreRejectedBeforeAnyRankStarts() {
        String[][] bad = {
            {"-np", "0"},
            {"-np", "65"},
            {"--bytes", "12X"},
            {"--bytes", "64K,6"},
            {"--bytes", "2", "--type", "float32"},
            {"--iters", "0"},
            {"--warmup", "-1"},
            {"--warmup-ms", "-1"},
            {"--timeout", "0"},
            {"--type", "float99"},
            {"--op", "median"},
            {"--net", "nosuch"},
        };
        String[] why = {
            "-np must be between 1 and 64, got 0",
            "-np must be between 1 and 64, got 65",
            "'12X' is not a size in bytes",
            "--bytes: 6 is not a whole number of float32 elements (4 bytes each)",
            "--bytes: 2 is not a whole number of float32 elements",
            "--iters must be at least 1, got 0",
            "--warmup must be 0 or more, got -1",
            "--warmup-ms must be 0-3600000, got -1",
            "--timeout must be at least 1 second, got 0",
            "unknown data type 'float99'",
            "unknown reduction 'median'",
            "--net: no transport named 'nosuch' on the class path (available: ",
        };
        UsageErrors.assertEach(new String[] {"bench", "collective"}, bad, why);
    }
}
