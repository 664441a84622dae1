package io.jccl.cli.bench;

import io.jccl.cli.CliRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

@Tag("integration")
class TransportBenchCommandTest {
    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Map<String, Object> json, String key) {
        return (List<Map<String, Object>>) json.get(key);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(CliRun r) {
        assertThat(r.code()).as(r.err()).isZero();
        return (Map<String, Object>) CliRun.parseJson(r.out());
    }

    @Test
    void gbnSweepAsExactlyOneJsonObject() {
        CliRun r = run("bench", "transport", "--driver", "sim", "--paths", "8", "--loss", "0,1%", "--bytes", "256K",
                "--protocol", "gbn", "--json", "--seed", "3");
        Map<String, Object> j = json(r);
        assertThat(r.out().strip()).startsWith("{").endsWith("}").doesNotContain("\n");
        List<Map<String, Object>> results = list(j, "results");
        assertThat(results).hasSize(2);
        for (Map<String, Object> res : results) {
            assertThat(res.keySet()).containsExactly("protocol", "loss", "paths", "bytes", "goodputBytesPerSec",
                    "goodputRatio", "retransmits", "simulatedNs", "events", "eventsPerSecond");
            assertThat(res.get("protocol")).isEqualTo("gbn");
            assertThat(res.get("paths")).isEqualTo(1.0);
            assertThat(res.get("bytes")).isEqualTo(262144.0);
            assertThat((Double) res.get("goodputBytesPerSec")).isPositive();
            assertThat((Double) res.get("events")).isPositive();
            assertThat((Double) res.get("eventsPerSecond")).isPositive();
        }
        assertThat(results.get(0).get("loss")).isEqualTo(0.0);
        assertThat(results.get(0).get("goodputRatio")).isEqualTo(1.0);
        assertThat(results.get(0).get("retransmits")).isEqualTo(0.0);
        assertThat(results.get(1).get("loss")).isEqualTo(0.01);
        assertThat((Double) results.get(1).get("goodputRatio")).isBetween(0.0, 1.0);
        assertThat(j).doesNotContainKey("incast");
        assertThat(((Map<?, ?>) j.get("config")).get("seed")).isEqualTo(3.0);
    }

    @Test
    void progressForcesABarOfTheRunsIncastIncludedAndJsonStaysOneObject() {
        CliRun r = run("bench", "transport", "--loss", "1%", "--bytes", "128K", "--protocol", "gbn", "--incast", "2",
                "--json", "--progress");
        json(r);
        // loss 0 (the reference, always run) and 1%, then the incast at 1%
        assertThat(r.err()).contains("jccl bench transport 100%").contains("3/3 runs");
        assertThat(r.out()).doesNotContain("\r");
    }

    @Test
    void sameSeedSameNumbers() {
        String[] args = {"bench", "transport", "--loss", "0.02", "--bytes", "128K", "--protocol", "gbn", "--json"};
        List<Map<String, Object>> a = list(json(run(args)), "results");
        List<Map<String, Object>> b = list(json(run(args)), "results");
        // The loss-0 baseline is added (first) when not asked for, for the ratio.
        assertThat(a).hasSize(2);
        assertThat(a.get(0).get("loss")).isEqualTo(0.0);
        for (int i = 0; i < 2; i++) {
            for (String k : new String[] {"goodputBytesPerSec", "goodputRatio", "retransmits", "simulatedNs",
                    "events"}) {
                assertThat(b.get(i).get(k)).as(k).isEqualTo(a.get(i).get(k));
            }
        }
    }

    @Test
    void incastResultsWhenAsked() {
        Map<String, Object> j = json(run("bench", "transport", "--protocol", "gbn", "--loss", "0", "--bytes", "1M",
                "--incast", "4", "--json"));
        List<Map<String, Object>> incast = list(j, "incast");
        assertThat(incast).hasSize(1);
        Map<String, Object> i = incast.getFirst();
        assertThat(i.get("senders")).isEqualTo(4.0);
        assertThat(i.get("bytesPerSender")).isEqualTo(262144.0);
        assertThat((Double) i.get("jainIndex")).isBetween(0.25, 1.0);
        assertThat((Double) i.get("convergenceRtts")).isGreaterThanOrEqualTo(-1.0);
        assertThat((Double) i.get("rttNs")).isPositive();
        assertThat((Double) i.get("inboundBytesPerSec")).isPositive();
        assertThat((Double) i.get("goodputBytesPerSec")).isPositive();
    }

    @Test
    void tableByDefault() {
        CliRun r = run("bench", "transport", "--protocol", "gbn", "--loss", "0", "--bytes", "64K", "--incast", "2",
                "--link-gbps", "25", "--delay-us", "2", "--buffer-kib", "256", "--ecn-kib", "64");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("goodput(GB/s)").contains("  gbn ").contains("25 Gbit/s links")
                .contains("2.0 us one way").contains("switch buffers 256 KiB").contains("ECN above 64 KiB")
                .contains("incast").contains("every byte checked");
    }

    @Test
    void udpOnLoopbackMovesCheckedBytesAndReportsRawUdpBeside() {
        CliRun r = run("bench", "transport", "--driver", "udp", "--bytes", "4M", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) CliRun.parseJson(r.out().strip());
        assertThat(m).containsEntry("driver", "udp");
        @SuppressWarnings("unchecked")
        Map<String, Object> res = ((List<Map<String, Object>>) m.get("results")).getFirst();
        assertThat(res).containsEntry("protocol", "metaroce").containsKeys("goodputBytesPerSec", "rawUdpBytesPerSec",
                "vsRawUdp", "rawUdpWindow", "retransmits", "checkedUdpBytesPerSec", "vsCheckedUdp", "checkedVsRawUdp");
        assertThat(((Number) res.get("checkedUdpBytesPerSec")).doubleValue()).isPositive();
        assertThat(((Number) res.get("bytes")).longValue()).isEqualTo(4L << 20);
        assertThat(m.get("io")).isIn("native", "channel");
        assertThat(((Number) m.get("footprintBytes")).longValue()).as("by default the transfer's size")
                .isEqualTo(4L << 20);
        CliRun reused = run("bench", "transport", "--driver", "udp", "--bytes", "4M", "--message-bytes", "1M",
                "--footprint", "2M");
        assertThat(reused.code()).as(reused.err()).isZero();
        assertThat(reused.out()).contains("from and into 2097152 bytes of memory in turn")
                .contains("placed into the same 2097152 bytes").contains("every byte checked");
        CliRun channel = run("bench", "transport", "--driver", "udp", "--bytes", "2M", "--io", "channel");
        assertThat(channel.code()).as(channel.err()).isZero();
        assertThat(channel.out()).contains("DatagramChannel I/O").contains("raw-udp").contains("flow-controlled")
                .contains("every byte checked").contains("  checked ").contains("MetaRoCE / checked: ");
        CliRun relayed = run("bench", "transport", "--driver", "udp", "--bytes", "2M", "--loss", "0.05");
        assertThat(relayed.code()).as(relayed.err()).isZero();
        assertThat(relayed.out()).contains("through the impairment relay").contains("  metaroce  0.000")
                .contains("  metaroce  0.050").contains("every byte checked");
    }

    @Test
    void usageErrorsExitWithTwoAndSayWhy() {
        String[][] bad = {
            {"--driver", "udp", "--protocol", "gbn"}, {"--driver", "udp", "--incast", "4"}, {"--driver", "nic"}, {"--loss", "1.5"}, {"--loss", "abc"}, {"--loss", "0,0"},
            {"--protocol", "tcp"}, {"--protocol", "gbn,gbn"}, {"--paths", "0"}, {"--paths", "65"},
            {"--bytes", "lots"}, {"--bytes", "0"}, {"--incast", "1"}, {"--payload", "100"}, {"--gbn-window", "2"},
            {"--link-gbps", "0"}, {"--nonsense"}, {"--driver", "udp", "--io", "rdma"}, {"--io", "native"},
            {"--driver", "udp", "--rto-floor-us", "5"}, {"--rto-floor-us", "5000"},
            {"--driver", "udp", "--bytes", "8M", "--footprint", "6M"}, {"--driver", "udp", "--footprint", "128M"},
            {"--driver", "udp", "--bytes", "8M", "--footprint", "1M"}, {"--footprint", "4M"},
        };
        String[] why = {"runs --protocol metaroce only", "--incast runs on the simulator",
            "--driver must be sim", "must be in [0, 1)",
            "is not a loss rate", "listed twice", "unknown protocol 'tcp'", "listed twice", "--paths must be 1-64",
            "--paths must be 1-64", "is not a size", "--bytes must be", "--incast must be", "--payload must be",
            "--gbn-window", "--link-gbps", "Unknown option", "--io must be auto, native or channel",
            "--io applies to --driver udp only", "--rto-floor-us must be 10-1000000",
            "--rto-floor-us applies to --driver udp only",
            "--footprint must be a multiple of the WRITE size (4194304 bytes) up to --bytes", "got 134217728",
            "got 1048576", "--footprint applies to --driver udp only"};
        UsageErrors.assertEach(new String[] {"bench", "transport"}, bad, why);
        CliRun group = run("bench");
        assertThat(group.code()).isEqualTo(2);
        assertThat(group.err()).contains("jccl bench transport --help");
    }

    @Test
    void runsMetaRoCE() {
        CliRun r = run("bench", "transport", "--protocol", "metaroce", "--loss", "0", "--bytes", "64K", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("\"metaroce\"");
    }

    @Test
    void jsonWriterEscapesAndFormatsNumbers() {
        String s = new Json().beginObject().field("a\"b\n", "x\\y\u0001").field("n", 1.0).field("m", 0.5)
                .field("big", 1.2345678e10).field("nan", Double.NaN).field("l", -3L).endObject().toString();
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) CliRun.parseJson(s);
        assertThat(m.get("a\"b\n")).isEqualTo("x\\y\u0001");
        assertThat(m.get("n")).isEqualTo(1.0);
        assertThat(m.get("m")).isEqualTo(0.5);
        assertThat((Double) m.get("big")).isCloseTo(1.23457e10, org.assertj.core.data.Offset.offset(1e5));
        assertThat(m).containsEntry("nan", null);
        assertThat(m.get("l")).isEqualTo(-3.0);
    }
}
