package io.jccl.cli.perf;

import io.jccl.cli.CliRun;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** nccl-tests' format with fixed numbers, and every collective's bus-bandwidth factor and size convention. */
class PerfFormatTest {
    private static final PerfFormat.Row ROW = new PerfFormat.Row("all_reduce", 1048576, 262144, "float", "sum", -1,
            new PerfFormat.Result(123.456, 8.49, 12.74, 0), new PerfFormat.Result(20000.4, 0.05, 0.08, 3));

    @Test
    void headerLinesAreNcclTests() {
        List<String> h = PerfFormat.header(8, 67108864, 4, 1048576, 5, 20, 1, 1,
                List.of(new PerfFormat.Device(0, 4242, "node1", "tcp"), new PerfFormat.Device(1, 4243, "node1", "tcp")));
        assertThat(h).containsExactly(
                "# nThread 1 nGpus 1 minBytes 8 maxBytes 67108864 step: 4(factor) warmup iters: 5 iters: 20 agg iters: 1"
                        + " validation: 1 graph: 0",
                "#",
                "# Using devices",
                "#  Rank  0 Group  0 Pid   4242 on      node1 transport tcp",
                "#  Rank  1 Group  0 Pid   4243 on      node1 transport tcp",
                "#",
                "#                                                              out-of-place                       "
                        + "in-place          ",
                "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw"
                        + "   busbw #wrong",
                "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)"
                        + "  (GB/s)       ");
        assertThat(PerfFormat.header(1024, 2048, 1, 512, 0, 1, 2, 0, List.of()).get(0))
                .isEqualTo("# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 512(bytes) warmup iters: 0 iters: 1 "
                        + "agg iters: 2 validation: 0 graph: 0");
    }

    @Test
    void rowFieldsHaveNcclTestsWidths() {
        assertThat(PerfFormat.row(ROW)).isEqualTo(
                "     1048576        262144     float     sum      -1    123.5    8.49   12.74      0    20000    0.05"
                        + "    0.08      3");
        PerfFormat.Row unchecked = new PerfFormat.Row("alltoall", 64, 8, "float", "none", -1,
                new PerfFormat.Result(5.5, 0.01, 0.005, -1), null);
        assertThat(PerfFormat.row(unchecked)).isEqualTo(
                "          64             8     float    none      -1     5.50    0.01    0.01    N/A      N/A     N/A"
                        + "     N/A    N/A");
        // The column header rows line up with the data: "time" ends where the time field ends.
        List<String> h = PerfFormat.header(8, 8, 2, 1, 0, 1, 1, 1, List.of());
        String names = h.get(h.size() - 2);
        assertThat(names.indexOf("time") + 4).isEqualTo(PerfFormat.row(ROW).indexOf("123.5") + 5);
        assertThat(PerfFormat.time(99.994)).isEqualTo("  99.99");
        assertThat(PerfFormat.time(100)).isEqualTo("  100.0");
        assertThat(PerfFormat.time(12345.6)).isEqualTo("  12346");
    }

    @Test
    void footerCountsWrongAndAveragesEveryPlacement() {
        assertThat(PerfFormat.footer(List.of(ROW))).containsExactly("# Out of bounds values : 3 FAILED",
                "# Avg bus bandwidth    : 6.41 ", "#");
        PerfFormat.Row ok = new PerfFormat.Row("sendrecv", 8, 2, "float", "none", -1,
                new PerfFormat.Result(1, 0.000123, 0.000123, 0), null);
        assertThat(PerfFormat.footer(List.of(ok))).containsExactly("# Out of bounds values : 0 OK",
                "# Avg bus bandwidth    : 0.000123 ", "#");
        assertThat(PerfFormat.cG(0)).isEqualTo("0");
        assertThat(PerfFormat.cG(12.3456789)).isEqualTo("12.3457");
        assertThat(PerfFormat.cG(0.0000123)).isEqualTo("1.23e-05");
        assertThat(PerfFormat.cG(1234567)).isEqualTo("1.23457e+06");
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonHasOneEntryPerRowAndPlacement() {
        Map<String, Object> j = (Map<String, Object>) CliRun.parseJson(PerfFormat.json(List.of(ROW)));
        List<Map<String, Object>> results = (List<Map<String, Object>>) j.get("results");
        assertThat(j).containsOnlyKeys("results");
        assertThat(results).hasSize(2);
        assertThat(results.get(0)).containsEntry("collective", "all_reduce").containsEntry("size", 1048576.0)
                .containsEntry("count", 262144.0).containsEntry("type", "float").containsEntry("redop", "sum")
                .containsEntry("root", -1.0).containsEntry("time", 123.456).containsEntry("algbw", 8.49)
                .containsEntry("busbw", 12.74).containsEntry("wrong", 0.0).containsEntry("inPlace", false);
        assertThat(results.get(1)).containsEntry("wrong", 3.0).containsEntry("inPlace", true);
    }

    @Test
    void busBandwidthFactorOfEveryCollective() {
        int n = 4;
        assertThat(PerfCollective.ALL_REDUCE.busFactor(n)).isEqualTo(1.5);
        for (PerfCollective c : List.of(PerfCollective.ALL_GATHER, PerfCollective.REDUCE_SCATTER,
                PerfCollective.ALLTOALL, PerfCollective.GATHER, PerfCollective.SCATTER, PerfCollective.HYPERCUBE)) {
            assertThat(c.busFactor(n)).as(c.cliName()).isEqualTo(0.75);
            assertThat(c.busFactor(1)).as(c.cliName()).isZero();
        }
        for (PerfCollective c : List.of(PerfCollective.BROADCAST, PerfCollective.REDUCE, PerfCollective.SENDRECV)) {
            assertThat(c.busFactor(n)).as(c.cliName()).isEqualTo(1.0);
        }
        assertThat(PerfCollective.ALL_REDUCE.busFactor(8)).isCloseTo(1.75, within(1e-12));
    }

    @Test
    void sizeConventionsFollowNcclTests() {
        // all_gather: size is the gathered buffer, count per rank; all_reduce: count = size / typesize.
        assertThat(PerfCollective.ALL_GATHER.count(1024, 4, 4)).isEqualTo(64);
        assertThat(PerfCollective.ALL_GATHER.sizeBytes(64, 4, 4)).isEqualTo(1024);
        assertThat(PerfCollective.ALL_GATHER.count(1000, 3, 4)).isEqualTo(83);
        assertThat(PerfCollective.ALL_GATHER.sizeBytes(83, 3, 4)).isEqualTo(996);
        assertThat(PerfCollective.ALL_REDUCE.count(1024, 4, 4)).isEqualTo(256);
        assertThat(PerfCollective.SENDRECV.sizeBytes(256, 4, 4)).isEqualTo(1024);
        assertThat(PerfCollective.parse("all_reduce_perf")).isEqualTo(PerfCollective.ALL_REDUCE);
        assertThat(PerfCollective.parse("allgather")).isEqualTo(PerfCollective.ALL_GATHER);
    }
}
