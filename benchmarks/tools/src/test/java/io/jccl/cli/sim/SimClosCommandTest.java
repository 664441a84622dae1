package io.jccl.cli.sim;

import io.jccl.cli.CliRun;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jccl sim permutation}, {@code incast}, {@code alltoall}, {@code allreduce}: the JSON report, a replayed seed,
 * loss, a failed plane, bad input.
 */
class SimClosCommandTest {
    private static double num(Map<String, Object> j, String key) {
        assertThat(j).containsKey(key);
        return ((Number) j.get(key)).doubleValue();
    }

    @Test
    void aPermutationReportsEveryFieldAndFinishesEveryFlow() {
        Map<String, Object> j = SimReports.passing("sim", "permutation", "--hosts", "54", "--flow-bytes", "256K",
                "--link-gbps", "400", "--mtu", "4096", "--seed", "3", "--json");
        assertThat(num(j, "hosts")).isEqualTo(54);
        assertThat(num(j, "radix")).isEqualTo(6);
        assertThat(num(j, "flows")).isEqualTo(54);
        assertThat(num(j, "unfinishedFlows")).isZero();
        assertThat(num(j, "events")).isPositive();
        assertThat(num(j, "eventsPerSecond")).isPositive();
        assertThat(num(j, "wallSeconds")).isPositive();
        assertThat(num(j, "peakHeapBytes")).isPositive();
        // 256 KiB in 4032-byte payloads: 66 packets of at most 4096 bytes at 20 ps a byte, plus 6 hops: at least 5.4 us.
        assertThat(num(j, "meanFctUs")).isGreaterThan(5.4);
        assertThat(num(j, "p99FctUs")).isGreaterThanOrEqualTo(num(j, "meanFctUs"));
    }

    @Test
    void theSameSeedReplaysTheRunAndLossIsRecovered() {
        String[] args = {"sim", "permutation", "--protocol", "ideal", "--hosts", "16", "--flow-bytes", "512K", "--loss",
            "0.05", "--seed", "9", "--json"};
        Map<String, Object> a = SimReports.replayed(args, "events", "meanFctUs");
        assertThat(num(a, "randomLosses")).isPositive();
        assertThat(num(a, "retransmissions")).isEqualTo(num(a, "randomLosses"));
        assertThat(num(a, "unfinishedFlows")).isZero();
    }

    @Test
    void metaroceThroughLossPlacesEveryCheckedByte() {
        Map<String, Object> j = SimReports.passing("sim", "permutation", "--protocol", "metaroce", "--hosts", "16",
                "--flow-bytes", "1M", "--loss", "0.02", "--seed", "4", "--json");
        assertThat(j).containsEntry("payload", "checked").containsEntry("protocol", "metaroce");
        assertThat(num(j, "wrongBytes")).isZero();
        assertThat(num(j, "unfinishedFlows")).isZero();
        assertThat(num(j, "randomLosses")).isPositive();
        assertThat(num(j, "retransmissions")).isPositive();
    }

    @Test
    void theRoceBaselineRunsAndChecksItsBytes() {
        Map<String, Object> j = SimReports.passing("sim", "permutation", "--protocol", "roce", "--hosts", "16",
                "--flow-bytes", "512K", "--loss", "0.01", "--json");
        assertThat(j).containsEntry("protocol", "roce");
        assertThat(num(j, "wrongBytes")).isZero();
        assertThat(num(j, "unfinishedFlows")).isZero();
    }

    @Test
    void aRingAllReduceReportsItsBusBandwidthAndAnAllToAllFinishes() {
        Map<String, Object> j = SimReports.passing("sim", "allreduce", "--hosts", "16", "--bytes", "4M", "--json");
        assertThat(num(j, "flows")).isEqualTo(16 * 30);
        assertThat(num(j, "jobUs")).isPositive();
        // A 400 Gbit/s link carries at most 50 GB/s: the bus bandwidth cannot be more.
        assertThat(num(j, "busBwGBps")).isPositive().isLessThan(50);
        Map<String, Object> all = SimReports.passing("sim", "alltoall", "--hosts", "16", "--flow-bytes", "64K",
                "--json");
        assertThat(num(all, "flows")).isEqualTo(16 * 15);
        assertUsage("leaves a host no bytes", "sim", "allreduce", "--hosts", "16", "--bytes", "8");
    }

    @Test
    void anIncastWithAFailedPlaneStillFinishes() {
        Map<String, Object> j = SimReports.passing("sim", "incast", "--hosts", "16", "--senders", "8", "--planes", "2",
                "--flow-bytes", "1M", "--fail", "plane:1@2us", "--json");
        assertThat(num(j, "flows")).isEqualTo(8);
        assertThat(num(j, "failureDrops")).isPositive();
        assertThat(num(j, "unfinishedFlows")).isZero();
    }

    /**
     * A plane fails under a permutation on 4 planes: MetaRoCE, whose paths span the planes, keeps most of its
     * throughput and finishes; the RoCEv2 baseline, one path in plane 0, stops when plane 0 fails.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aFailedPlaneDipsMetaRoceAndStopsRoce() {
        String[] common = {"sim", "permutation", "--hosts", "16", "--planes", "4", "--link-gbps", "100", "--flow-bytes",
            "4M", "--fail", "plane:0@50us", "--timeline-us", "5", "--until-us", "5000", "--json"};
        Map<String, Object> metaroce = CliRun.of(concat(common, "--protocol", "metaroce")).json();
        assertThat(num(metaroce, "unfinishedFlows")).isZero();
        Map<String, Object> failure = (Map<String, Object>) metaroce.get("failure");
        assertThat(num(failure, "beforeGbps")).isPositive();
        assertThat(num(failure, "recoveredAfterUs")).isBetween(0.0, 100.0);
        assertThat((java.util.List<Object>) metaroce.get("timelineGbps")).isNotEmpty();
        CliRun roce = CliRun.of(concat(common, "--protocol", "roce"));
        assertThat(roce.code()).isEqualTo(1);
        Map<String, Object> stuck = roce.json();
        assertThat(num(stuck, "unfinishedFlows")).isEqualTo(16);
        assertThat(num((Map<String, Object>) stuck.get("failure"), "recoveredAfterUs")).isEqualTo(-1);
    }

    /**
     * A sweep: two loss rates times two protocols, one JSON object per run (loss outer, protocol inner), each with the
     * new measures; and --plot draws throughput against loss.
     */
    @Test
    void aSweepOverLossAndProtocolsPrintsARunPerLineAndPlotsThroughputAgainstLoss(@org.junit.jupiter.api.io.TempDir
                                                                                  java.nio.file.Path dir)
            throws java.io.IOException {
        java.nio.file.Path png = dir.resolve("loss.png");
        CliRun run = CliRun.of("sim", "allreduce", "--hosts", "16", "--bytes", "2M", "--loss", "0,0.02", "--protocol",
                "metaroce,roce", "--plot", png.toString(), "--json");
        assertThat(run.code()).as(run.out() + run.err()).isZero();
        String[] lines = run.out().strip().split("\n");
        assertThat(lines).hasSize(4);
        String[] expected = {"metaroce 0.0", "roce 0.0", "metaroce 0.02", "roce 0.02"};
        for (int i = 0; i < 4; i++) {
            @SuppressWarnings("unchecked")
            Map<String, Object> j = (Map<String, Object>) CliRun.parseJson(lines[i]);
            assertThat(j.get("protocol") + " " + j.get("loss")).isEqualTo(expected[i]);
            assertThat(num(j, "unfinishedFlows")).isZero();
            assertThat(num(j, "throughputGBps")).isEqualTo(num(j, "busBwGBps")).isPositive();
            assertThat(num(j, "minGoodputGbps")).isPositive().isLessThanOrEqualTo(num(j, "medianGoodputGbps"));
            assertThat(num(j, "meanQueueBytes")).isPositive().isLessThanOrEqualTo(num(j, "busiestMeanQueueBytes"));
            assertThat(num(j, "busiestMeanQueueBytes")).isLessThanOrEqualTo(num(j, "maxQueueBytes"));
            assertThat(num(j, "rateCuts")).isGreaterThanOrEqualTo(0);
            assertThat(num(j, "failedCompletions")).isZero();
        }
        java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(960);
        assertThat(image.getHeight()).isEqualTo(600);
        try (var files = java.nio.file.Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactly("loss.png");   // no temporary left
        }
    }

    /** --plot draws the flows' completion times as a CDF, or with --timeline-us the throughput over time. */
    @Test
    void plotsACompletionTimeCdfAndATimeline(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        java.nio.file.Path cdf = dir.resolve("cdf.png");
        CliRun run = CliRun.of("sim", "permutation", "--hosts", "16", "--flow-bytes", "256K", "--protocol",
                "metaroce,roce-nocc,ideal", "--plot", cdf.toString());
        assertThat(run.code()).as(run.out() + run.err()).isZero();
        assertThat(run.out().strip().split("\n")).hasSize(3);
        assertThat(run.out()).contains("# permutation, roce-nocc,").contains("throughput");
        assertThat(javax.imageio.ImageIO.read(cdf.toFile()).getWidth()).isEqualTo(960);
        java.nio.file.Path timeline = dir.resolve("timeline.png");
        CliRun failed = CliRun.of("sim", "permutation", "--hosts", "16", "--planes", "2", "--flow-bytes", "1M",
                "--fail", "plane:1@10us", "--timeline-us", "2", "--plot", timeline.toString());
        assertThat(failed.code()).as(failed.out() + failed.err()).isZero();
        assertThat(java.nio.file.Files.size(timeline)).isPositive();
    }

    /**
     * A core switch fails and, separately, a host's link fails and comes back: MetaRoCE finishes every flow through
     * both (a rerouted path, a resumed link); the host link's outage shows as packets dropped by failed ports.
     */
    @Test
    void aFailedSwitchAndAHostLinkThatComesBack() {
        Map<String, Object> core = CliRun.of("sim", "permutation", "--hosts", "16", "--flow-bytes", "4M",
                "--fail", "switch:core0@20us", "--seed", "9", "--json").json();
        assertThat(num(core, "unfinishedFlows")).isZero();
        assertThat(num(core, "failureDrops")).isPositive();
        assertThat(num(core, "wrongBytes")).isZero();
        Map<String, Object> link = CliRun.of("sim", "permutation", "--hosts", "16", "--flow-bytes", "1M",
                "--fail", "link:host3@10us", "--fail", "link:host3+@100us", "--json").json();
        assertThat(num(link, "unfinishedFlows")).isZero();
        assertThat(num(link, "failureDrops")).isPositive();
        assertThat(num(link, "maxFctUs")).isGreaterThan(95);   // host 3's flows waited for its link
    }

    @Test
    void aLossIsNamedAsAPercentage() {
        assertThat(ClosOptions.percent(0.01)).isEqualTo("1%");
        assertThat(ClosOptions.percent(0.001)).isEqualTo("0.1%");
        assertThat(ClosOptions.percent(0)).isEqualTo("0%");
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void flowsNotDoneByTheLimitFailTheRun() {
        CliRun run = CliRun.of("sim", "permutation", "--hosts", "16", "--flow-bytes", "8M", "--until-us", "10",
                "--json");
        assertThat(run.code()).isEqualTo(1);
        assertThat(num(run.json(), "unfinishedFlows")).isEqualTo(16);
    }

    @Test
    void badInputIsAUsageErrorNamingIt() {
        assertUsage("--protocol must be metaroce, roce, roce-nocc or ideal", "sim", "permutation", "--protocol",
                "quic");
        assertUsage("--protocol names roce twice", "sim", "permutation", "--protocol", "roce,metaroce,roce");
        assertUsage("--loss must be in [0, 1), not 2", "sim", "permutation", "--loss", "0,2");
        assertUsage("--loss takes numbers", "sim", "permutation", "--loss", "0,x");
        assertUsage("core switches 0-3", "sim", "permutation", "--hosts", "16", "--fail", "switch:core9@1us");
        assertUsage("'router:1' is not a fabric element", "sim", "permutation", "--fail", "router:1@1us");
        assertUsage("--plot takes a file name ending in .png", "sim", "permutation", "--plot", "x.jpg");
        assertUsage("does not exist", "sim", "permutation", "--plot", "/no/such/dir/x.png");
        assertUsage("--payload must be checked, shared or auto", "sim", "permutation", "--payload", "some");
        assertUsage("--mtu must be in 370-65114 for metaroce", "sim", "permutation", "--mtu", "300");
        assertUsage("hosts must be in", "sim", "permutation", "--hosts", "20", "--radix", "4");
        assertUsage("plane 3 is not in 0-1", "sim", "permutation", "--planes", "2", "--fail", "plane:3@1us");
        assertUsage("needs a unit", "sim", "permutation", "--fail", "plane:0@5");
        assertUsage("--senders must be in 1-15", "sim", "incast", "--hosts", "16", "--senders", "16");
        assertUsage("radix must be even", "sim", "permutation", "--radix", "5", "--hosts", "8");
    }

    private static void assertUsage(String message, String... args) {
        CliRun run = CliRun.of(args);
        assertThat(run.code()).as(run.out() + run.err()).isEqualTo(2);
        assertThat(run.err()).contains(message);
    }
}
