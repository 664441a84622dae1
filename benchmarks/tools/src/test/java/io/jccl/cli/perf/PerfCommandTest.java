package io.jccl.cli.perf;

import io.jccl.cli.CliRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code jccl perf} with real rank JVMs (-np 2, tiny sizes): format, every collective, JSON, failures, plot, flags. */
@Tag("integration")
class PerfCommandTest {
    private static List<String> dataRows(String out) {
        return out.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
    }

    @Test
    void settlingTheJitKeepsTheRanksCallsMatched() {
        // each rank decides alone whether its JIT compiled; the all-reduced verdict keeps both in the same round
        CliRun r = CliRun.of("perf", "all_reduce", "-np", "2", "-b", "8", "-e", "1K", "-f", "4", "-n", "2", "-w", "30",
                "-W", "5", "-T", "60");
        assertThat(r.code()).as(r.err()).isZero();
        List<String> rows = dataRows(r.out());
        assertThat(rows).hasSize(4).allSatisfy(row -> assertThat(row).endsWith("      0"));
        assertThat(r.out()).contains("# Out of bounds values : 0 OK");
    }

    @Test
    void progressCountsTheRowsOnStandardErrorWhileTheTableStaysWhole() {
        // a rooted collective with -r -1: a row for each size and root
        CliRun r = CliRun.of("perf", "reduce", "-np", "2", "-b", "8", "-e", "32", "-f", "4", "-n", "1", "-w", "0",
                "-r", "-1", "-T", "60", "--progress");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(dataRows(r.out())).hasSize(4);
        assertThat(r.out()).doesNotContain("\r").contains("# Out of bounds values : 0 OK");
        assertThat(r.err()).contains("jccl perf 100%").contains("4/4 rows");
    }

    @Test
    void tinyAllReduceRunPrintsNcclTestsFormat() {
        CliRun r = CliRun.of("perf", "all_reduce", "-np", "2", "-b", "8", "-e", "1K", "-f", "4", "-n", "2", "-w", "1",
                "-T", "60");
        assertThat(r.code()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines.get(0)).isEqualTo("# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 4(factor) warmup iters:"
                + " 1 iters: 2 agg iters: 1 validation: 1 graph: 0");
        assertThat(lines.subList(1, 3)).containsExactly("#", "# Using devices");
        assertThat(lines.get(3)).matches("#  Rank  0 Group  0 Pid +\\d+ on +\\S+ transport auto");
        assertThat(lines.get(4)).matches("#  Rank  1 Group  0 Pid +\\d+ on +\\S+ transport auto");
        List<String> header = PerfFormat.header(8, 1024, 4, 1048576, 1, 2, 1, 1, List.of());
        assertThat(lines.subList(5, 9)).containsExactlyElementsOf(header.subList(3, 7));
        List<String> rows = dataRows(r.out());
        assertThat(rows).hasSize(4);
        long[] sizes = {8, 32, 128, 512};
        for (int i = 0; i < rows.size(); i++) {
            String row = rows.get(i);
            // %12d  %12d  %8s  %6s  %6d, then twice "  %7s  %6.2f  %6.2f  %5s"
            assertThat(row).hasSize(52 + 2 * 32);
            assertThat(row.substring(0, 52)).isEqualTo(String.format("%12d  %12d  %8s  %6s  %6d", sizes[i],
                    sizes[i] / 4, "float", "sum", -1));
            assertThat(row.substring(52)).matches("(  [ 0-9.]{7}  [ 0-9.]{6}  [ 0-9.]{6}      0){2}");
        }
        assertThat(lines.subList(lines.size() - 3, lines.size()).get(0)).isEqualTo("# Out of bounds values : 0 OK");
        assertThat(lines.get(lines.size() - 2)).matches("# Avg bus bandwidth    : [0-9.e+-]+ ");
        assertThat(lines.get(lines.size() - 1)).isEqualTo("#");
    }

    @Test
    void everyCollectiveRunsExactlyOnTwoRanks() {
        String all = "all_reduce,all_gather,broadcast,reduce,reduce_scatter,alltoall,gather,scatter,sendrecv,hypercube";
        CliRun r = CliRun.of("perf", all, "-np", "2", "-b", "64", "-e", "4K", "-f", "64", "-n", "1", "-w", "0",
                "-r", "-1", "-T", "60");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out().lines().filter(l -> l.equals("# Out of bounds values : 0 OK"))).hasSize(10);
        // 2 sizes each; the rooted four run both roots.
        assertThat(dataRows(r.out())).hasSize(2 * 10 + 2 * 4);
        assertThat(dataRows(r.out()).stream().filter(l -> l.contains("N/A"))).hasSize(4);   // alltoall, sendrecv
    }

    /** {@code -R 1}: the buffers come from Communicator.allocate (shm registered memory between these rank JVMs). */
    @Test
    void registeredBuffersRunExactly() {
        CliRun r = CliRun.of("perf", "all_reduce,alltoall", "-np", "2", "-b", "8", "-e", "1M", "-f", "32", "-n", "1",
                "-w", "0", "-R", "1", "-T", "60");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out().lines().filter(l -> l.equals("# Out of bounds values : 0 OK"))).hasSize(2);
        assertThat(dataRows(r.out())).hasSize(2 * 4);   // 8, 256, 8K and 256K each
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonIsOneObjectAndPlotIsAPng(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("busbw.png");
        CliRun r = CliRun.of("perf", "reduce_scatter", "-np", "2", "-b", "8", "-e", "1K", "-f", "4", "-n", "2", "-w",
                "1", "-d", "bfloat16", "-o", "max", "-T", "60", "-J", "--plot", png.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out().strip()).startsWith("{").endsWith("}").doesNotContain("\n");
        Map<String, Object> j = (Map<String, Object>) CliRun.parseJson(r.out());
        List<Map<String, Object>> results = (List<Map<String, Object>>) j.get("results");
        assertThat(results).hasSize(8);
        long[] sizes = {8, 32, 128, 512};
        for (int i = 0; i < results.size(); i++) {
            Map<String, Object> e = results.get(i);
            assertThat(e).containsOnlyKeys("collective", "size", "count", "type", "redop", "root", "time", "algbw",
                    "busbw", "wrong", "inPlace");
            assertThat(e).containsEntry("collective", "reduce_scatter").containsEntry("size", (double) sizes[i / 2])
                    .containsEntry("count", (double) (sizes[i / 2] / 2 / 2)).containsEntry("type", "bfloat16")
                    .containsEntry("redop", "max").containsEntry("root", -1.0).containsEntry("wrong", 0.0)
                    .containsEntry("inPlace", i % 2 == 1);
            assertThat((Double) e.get("time")).isPositive();
            // two ranks: busbw = algbw * (n-1)/n
            assertThat((Double) e.get("busbw")).isCloseTo((Double) e.get("algbw") / 2, org.assertj.core.api
                    .Assertions.within(1e-5));
        }
        assertThat(Files.size(png)).isBetween(2_000L, 500_000L);
        BufferedImage img = ImageIO.read(png.toFile());
        assertThat(img.getWidth()).isEqualTo(900);
        assertThat(img.getHeight()).isEqualTo(560);
    }

    @Test
    void aWrongResultFailsTheRun() {
        CliRun r = CliRun.of("perf", "all_gather", "-np", "2", "-b", "64", "-e", "64", "-n", "1", "-w", "0", "-T", "60",
                "--test-corrupt");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).contains("# Out of bounds values : 2 FAILED");
        assertThat(r.err()).contains("wrong");
        // -c 0 checks nothing: N/A, and success.
        CliRun unchecked = CliRun.of("perf", "all_gather", "-np", "2", "-b", "64", "-e", "64", "-n", "1", "-w", "0",
                "-T", "60", "-c", "0", "--test-corrupt");
        assertThat(unchecked.code()).as(unchecked.err()).isZero();
        assertThat(dataRows(unchecked.out()).get(0)).endsWith("N/A");
    }

    @Test
    void metricsPortServesEachRanksMetersWithTheirTags() throws Exception {
        int port = freePortPair();
        java.util.concurrent.atomic.AtomicReference<String>[] last = new java.util.concurrent.atomic.AtomicReference[] {
                new java.util.concurrent.atomic.AtomicReference<>(""),
                new java.util.concurrent.atomic.AtomicReference<>("")};
        java.util.concurrent.CompletableFuture<CliRun> run = java.util.concurrent.CompletableFuture.supplyAsync(() ->
                CliRun.of("perf", "all_reduce", "-np", "2", "-b", "64", "-e", "256", "-f", "4", "-n", "5", "-w", "2",
                        "-T", "60", "--metrics-port", Integer.toString(port), "--metrics-linger", "3"));
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        while (!run.isDone()) {
            for (int r = 0; r < 2; r++) {
                try {
                    java.net.http.HttpResponse<String> response = http.send(java.net.http.HttpRequest.newBuilder(
                                    java.net.URI.create("http://127.0.0.1:" + (port + r) + "/metrics")).build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() == 200) {
                        last[r].set(response.body());
                    }
                } catch (java.io.IOException notUpYet) {
                    // the rank has not started its endpoint yet, or has ended
                }
            }
            Thread.sleep(50);
        }
        CliRun r = run.get();
        assertThat(r.code()).as(r.err()).isZero();
        // Only rank 0's error stream reaches the terminal; the others serve at P + local rank all the same.
        assertThat(r.err()).contains("rank 0 serves metrics at http://127.0.0.1:" + port + "/metrics");
        for (int rank = 0; rank < 2; rank++) {
            String scrape = last[rank].get();
            // 2 sizes x (2 warm-up + 5 timed) x (out-of-place + in-place), plus the checking calls.
            // The float32 series (the tool's checks add all-reduces of other types, a few bytes: the box lines).
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("jccl_collective_seconds_count\\{([^}]*"
                    + "collective=\"allReduce\"[^}]*type=\"float32\"[^}]*)} ([0-9.]+)").matcher(scrape);
            assertThat(m.find()).as("rank %d scrape:%n%s", rank, scrape).isTrue();
            assertThat(m.group(1)).contains("transport=\"shm\"");   // same host: shm
            assertThat(Double.parseDouble(m.group(2))).isGreaterThanOrEqualTo(2 * 7 * 2);
            assertThat(scrape).contains("jccl_collective_bytes_total{");
        }
    }

    private static int freePortPair() throws java.io.IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            try (java.net.ServerSocket a = new java.net.ServerSocket(0)) {
                int p = a.getLocalPort();
                if (p < 65535) {
                    try (java.net.ServerSocket b = new java.net.ServerSocket(p + 1)) {
                        return p;
                    } catch (java.io.IOException taken) {
                        // try another
                    }
                }
            }
        }
        throw new IllegalStateException("no two adjacent free ports");
    }

    @Test
    void badFlagsAreRefusedClearly() {
        assertThat(CliRun.of("perf", "all_reduc").err()).contains("unknown collective 'all_reduc'",
                "all_reduce, all_gather, broadcast, reduce, reduce_scatter, alltoall, gather, scatter, sendrecv, "
                        + "hypercube");
        assertThat(CliRun.of("perf", "all_reduce", "-b", "1M", "-e", "1K").err()).contains("-b 1M is larger than -e 1K");
        assertThat(CliRun.of("perf", "all_reduce", "-b", "12Q").err()).contains("-b: '12Q' is not a size");
        assertThat(CliRun.of("perf", "all_reduce", "-f", "0").err()).contains("-f must be 2 or more");
        assertThat(CliRun.of("perf", "all_reduce", "-d", "fp4").err()).contains("unknown data type 'fp4'",
                "bfloat16");
        assertThat(CliRun.of("perf", "all_reduce", "-o", "xor").err()).contains("unknown reduction 'xor'");
        assertThat(CliRun.of("perf", "all_reduce", "-a", "4").err()).contains("-a must be 0");
        assertThat(CliRun.of("perf", "all_reduce", "-c", "2").err()).contains("-c must be 0 or 1");
        assertThat(CliRun.of("perf", "all_reduce", "-R", "2").err()).contains("-R must be 0 or 1");
        assertThat(CliRun.of("perf", "all_reduce", "-n", "0").err()).contains("-n must be at least 1");
        assertThat(CliRun.of("perf", "all_reduce", "-W", "-1").err()).contains("-W must be within 0-100, got -1");
        assertThat(CliRun.of("perf", "all_reduce", "-W", "101").err()).contains("-W must be within 0-100, got 101");
        assertThat(CliRun.of("perf", "all_reduce", "--transport", "ib").err()).contains("--transport 'ib'");
        assertThat(CliRun.of("perf", "broadcast", "-np", "2", "-r", "2").err()).contains("-r 2 is not a rank of 2");
        assertThat(CliRun.of("perf", "hypercube", "-np", "3").err()).contains("power-of-two");
        assertThat(CliRun.of("perf", "all_reduce", "--plot", "x.jpg").err()).contains("ending in .png");
        assertThat(CliRun.of("perf", "all_reduce", "-np", "2", "--metrics-port", "65535").err())
                .contains("--metrics-port must be 1-65534");
        assertThat(CliRun.of("perf", "all_reduce", "--metrics-linger", "5").err())
                .contains("--metrics-linger needs --metrics-port");
        assertThat(CliRun.of("perf", "all_reduce", "-b", "1M", "-e", "1K").code()).isEqualTo(2);
    }
}
