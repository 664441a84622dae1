package io.jccl.cli.bench.loss;

import io.jccl.cli.CliRun;
import io.jccl.cli.bench.UsageErrors;
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
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code jccl bench loss}: a tiny real sweep (two JVMs per run, MetaRoCE through the relay) with its JSON and plot,
 * the skip path, and the options' checks.
 */
@Tag("integration")
class LossBenchCommandTest {
    /** Every result object has exactly these fields, in this order ({@code reason} only when not ok). */
    private static final List<String> FIELDS = List.of("transport", "loss", "link", "bytes", "goodputBytesPerSec",
            "goodputRatio", "seconds", "status", "deliveredBytes", "droppedPackets", "overflowPackets",
            "forwardedPackets", "wallSeconds", "runs");

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object json, String key) {
        return (List<Map<String, Object>>) ((Map<String, Object>) json).get(key);
    }

    @Test
    void aTinySweepThroughTheRelayGivesOneJsonObjectAndAPlot(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("plots").resolve("loss.png");
        CliRun r = CliRun.of("bench", "loss", "--transports", "metaroce", "--link", "relay", "--loss", "0,5%",
                "--bytes", "2M", "--message-bytes", "512K", "--warmup-bytes", "512K", "--paths", "4",
                "--timeout", "60", "--json", "--model", "--plot", png.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out().strip()).startsWith("{").endsWith("}").doesNotContain("\n");
        Object json = CliRun.parseJson(r.out().strip());
        assertThat(List.copyOf(((Map<?, ?>) json).keySet())).isEqualTo(List.of("results", "model"));
        List<Map<String, Object>> results = list(json, "results");
        assertThat(results).hasSize(2);
        for (Map<String, Object> res : results) {
            assertThat(List.copyOf(res.keySet())).as(res.toString()).isEqualTo(FIELDS);
            assertThat(res.get("transport")).isEqualTo("metaroce");
            assertThat(res.get("link")).isEqualTo("relay");
            assertThat(res.get("status")).isEqualTo("ok");
            assertThat(res.get("bytes")).isEqualTo(2097152.0);
            assertThat(res.get("deliveredBytes")).isEqualTo(2097152.0);
            assertThat(res.get("runs")).isEqualTo(1.0);
            assertThat((Double) res.get("goodputBytesPerSec")).isPositive();
            assertThat((Double) res.get("seconds")).isPositive();
            assertThat((Double) res.get("forwardedPackets")).isGreaterThan(256.0);   // 2 MiB in 8 KiB datagrams
        }
        assertThat(results.get(0).get("loss")).isEqualTo(0.0);
        assertThat(results.get(0).get("goodputRatio")).isEqualTo(1.0);
        assertThat(results.get(0).get("droppedPackets")).isEqualTo(0.0);
        assertThat(results.get(1).get("loss")).isEqualTo(0.05);
        assertThat((Double) results.get(1).get("goodputRatio")).isPositive();
        assertThat((Double) results.get(1).get("droppedPackets")).isPositive();

        List<Map<String, Object>> model = list(json, "model");
        assertThat(model).hasSize(2);
        assertThat(model.get(0)).containsEntry("protocol", "gbn").containsEntry("loss", 0.0)
                .containsEntry("goodputRatio", 1.0);
        assertThat((Double) model.get(1).get("goodputRatio")).isBetween(0.0, 1.0);

        byte[] head = new byte[8];
        System.arraycopy(Files.readAllBytes(png), 0, head, 0, 8);
        assertThat(head).containsExactly(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n');
        BufferedImage img = ImageIO.read(png.toFile());
        assertThat(img.getWidth()).isEqualTo(LossReport.PLOT_WIDTH_PIXELS);
        assertThat(img.getHeight()).isEqualTo(LossReport.PLOT_HEIGHT_PIXELS);
    }

    @Test
    void tcpCrossesTheTunLinkBetweenNamespacesWhereItCanBeSetUp() {
        assumeTrue(TunLink.unavailableReason().isEmpty(), () -> "no TUN link here: "
                + TunLink.unavailableReason().orElseThrow());
        CliRun r = CliRun.of("bench", "loss", "--transports", "tcp", "--link", "tun", "--loss", "0,5%", "--bytes",
                "2M", "--message-bytes", "512K", "--warmup-bytes", "512K", "--timeout", "60", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        List<Map<String, Object>> results = list(CliRun.parseJson(r.out().strip()), "results");
        assertThat(results).hasSize(2).allSatisfy(res -> {
            assertThat(List.copyOf(res.keySet())).isEqualTo(FIELDS);
            assertThat(res).containsEntry("transport", "tcp").containsEntry("link", "tun")
                    .containsEntry("status", "ok").containsEntry("deliveredBytes", 2097152.0);
            assertThat((Double) res.get("overflowPackets")).isGreaterThanOrEqualTo(0.0);
            assertThat((Double) res.get("forwardedPackets")).isGreaterThan(200.0);   // 2.5 MiB in 9000-byte packets
        });
        assertThat(results.get(0).get("droppedPackets")).isEqualTo(0.0);
        assertThat((Double) results.get(1).get("droppedPackets")).isPositive();
    }

    @Test
    void aRunPastItsTimeoutIsReportedAndItsJvmsKilledNotWaitedFor() {
        long startNs = System.nanoTime();
        CliRun r = CliRun.of("bench", "loss", "--transports", "metaroce", "--link", "relay", "--loss", "0",
                "--bytes", "1G", "--timeout", "1", "--json");
        double seconds = (System.nanoTime() - startNs) / 1e9;
        assertThat(r.code()).as("a transport that cannot finish unimpaired fails the benchmark").isEqualTo(1);
        List<Map<String, Object>> results = list(CliRun.parseJson(r.out().strip()), "results");
        assertThat(results).hasSize(1);
        assertThat(results.getFirst()).containsEntry("status", "timeout").containsEntry("link", "relay");
        assertThat((String) results.getFirst().get("reason")).startsWith("timeout: ").endsWith("arrived in 1 s");
        assertThat(r.err()).contains("metaroce did not finish without loss: timeout");
        assertThat(seconds).as("the run's JVMs were killed at the timeout").isLessThan(20);
    }

    @Test
    void transportsNoLinkCarriesAreSkippedWithTheReason() {
        CliRun r = CliRun.of("bench", "loss", "--transports", "tcp,aeron-udp", "--link", "relay", "--loss", "0,1%",
                "--no-progress");
        assertThat(r.code()).as("nothing ran").isEqualTo(1);
        assertThat(r.out()).contains("tcp: the relay link carries metaroce only")
                .contains("aeron-udp: the relay link carries metaroce only");
        assertThat(r.out().lines().filter(l -> l.startsWith("  ")).toList()).hasSize(4)
                .allSatisfy(l -> assertThat(l).endsWith("skipped"));
        assertThat(r.err()).contains("no transport could run");

        CliRun j = CliRun.of("bench", "loss", "--transports", "tcp", "--link", "relay", "--loss", "1%", "--json");
        List<Map<String, Object>> results = list(CliRun.parseJson(j.out().strip()), "results");
        assertThat(results).hasSize(2);   // loss 0 added: the reference
        assertThat(results.get(0)).containsEntry("loss", 0.0).containsEntry("status", "skipped")
                .containsEntry("link", "none").containsEntry("goodputBytesPerSec", null)
                .containsEntry("goodputRatio", null).containsEntry("droppedPackets", -1.0)
                .containsEntry("overflowPackets", -1.0).containsEntry("runs", 0.0);
        assertThat((String) results.get(0).get("reason")).startsWith("tcp: the relay link carries metaroce only");
        assertThat(results.get(1)).containsEntry("loss", 0.01);
    }

    @Test
    void badOptionsAreRefusedNamingTheOption() {
        String[][] bad = {
            {"--transports", "udp"},
            {"--transports", "shm"},
            {"--transports", "tcp,TCP"},
            {"--loss", "1.5"},
            {"--loss", "-1%"},
            {"--loss", "0.1,10%"},
            {"--bytes", "0"},
            {"--bytes", "2G"},
            {"--message-bytes", "0"},
            {"--bytes", "64M", "--message-bytes", "1"},
            {"--paths", "0"},
            {"--inflight", "17"},
            {"--timeout", "0"},
            {"--repeat", "0"},
            {"--warmup-bytes", "2G"},
            {"--link", "wire"},
            {"--plot", "loss.jpg"},
        };
        String[] why = {
            "--transports: 'udp' is not a transport that crosses a network (choose from metaroce, tcp, aeron-udp)",
            "--transports: 'shm' is not a transport that crosses a network",
            "--transports: tcp is listed twice",
            "loss rate '1.5' must be in [0, 1)",
            "loss rate '-1%' must be in [0, 1)",
            "--loss: 0.1 is listed twice",
            "--bytes must be between 1 and 1G, got 0",
            "--bytes must be between 1 and 1G, got 2147483648",
            "--message-bytes must be at least 1, got 0",
            "--message-bytes 1 makes 67108864 messages of --bytes 67108864; at most 1048576",
            "--paths must be 1-64, got 0",
            "--inflight must be 1-16, got 17",
            "--timeout must be 1-86400 seconds, got 0",
            "--repeat must be 1-100, got 0",
            "--warmup-bytes must be between 0 and 1G, got 2147483648",
            "--link must be auto, tun or relay, not 'wire'",
            "--plot writes a PNG: give a file name ending in .png, not loss.jpg",
        };
        UsageErrors.assertEach(new String[] {"bench", "loss"}, bad, why);
    }
}
