package io.jccl.memory;

import io.jccl.memory.hip.HipStub;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link GpuChecks}, what the GPU script runs, on the HIP stub at small sizes: the conformance suite runs through
 * the JUnit Platform with the domain required and passes, the benchmark measures and checks each size and pins no
 * staging once warm, and the summary says so (the numbers are CPU copies and mean nothing). Also its arguments and
 * the benchmark's sizes.
 */
class GpuChecksTest {
    @Test
    void theChecksRunTheSuiteAndTheBenchmarkAndSummarize(@TempDir Path out) throws Exception {
        HipStub.assumeBuilt();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        GpuChecks.Result r;
        try (PrintStream ps = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            r = GpuChecks.run(new GpuChecks.Options("hip", 64 << 10, 1 << 20, out, true, true), ps);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(r.failed()).as(text).isZero();
        assertThat(r.passed()).as(text).isEqualTo(12);
        assertThat(r.ok()).isTrue();
        assertThat(r.rows()).extracting(DeviceAllReduceBenchmark.Row::bytes).containsExactly(65536L, 262144L,
                1048576L);
        assertThat(r.rows()).allSatisfy(row -> {
            assertThat(row.exact()).isTrue();
            assertThat(row.stagingAllocationsPerOp()).as("no staging pinned once warm").isZero();
            assertThat(row.hostMicros()).isPositive();
            assertThat(row.deviceMicros()).isPositive();
        });
        assertThat(System.getProperty(DeviceDomains.REQUIRE_PROPERTY)).as("restored").isNull();
        assertThat(text).contains("domain cuda: unavailable", "domain hip: available",
                "device: HIP stub device 0, 2 devices, 1024 MiB; HIP runtime 60300000 from",
                "PASS allReduceOverDeviceBuffersIsExact()",
                "tests     : 12 passed, 0 failed, 0 skipped (HipDomainConformanceTest)",
                "benchmark : 3 sizes, every result exact", "result    : PASS");
        assertThat(text).containsPattern("\\n +1048576 +[0-9.]+ +[0-9.]+ +[0-9.]+ .* OK\\n");
        assertThat(Files.readString(out.resolve("summary-hip.txt"))).contains("result    : PASS");
    }

    @Test
    void argumentsAndSizes() {
        GpuChecks.Options o = GpuChecks.parse(new String[] {"--domain", "CUDA", "--max-bytes", "64M"});
        assertThat(o.domain()).isEqualTo("cuda");
        assertThat(o.minBytes()).isEqualTo(1L << 20);
        assertThat(o.maxBytes()).isEqualTo(64L << 20);
        assertThat(o.tests() && o.bench()).isTrue();
        assertThat(GpuChecks.bytes("4096", "--x")).isEqualTo(4096);
        assertThat(GpuChecks.bytes("2G", "--x")).isEqualTo(2L << 30);
        assertThatThrownBy(() -> GpuChecks.parse(new String[] {"--max-bytes", "1M"}))
                .hasMessageContaining("--domain must be one of");
        assertThatThrownBy(() -> GpuChecks.parse(new String[] {"--domain", "cuda", "--max-bytes", "lots"}))
                .hasMessage("--max-bytes must be a byte count like 1M or 4096, got 'lots'");
        assertThatThrownBy(() -> GpuChecks.parse(new String[] {"--domain", "cuda", "--frobnicate"}))
                .hasMessageContaining("unknown argument '--frobnicate'");
        assertThatThrownBy(() -> GpuChecks.parse(new String[] {"--domain", "cuda", "--min-bytes", "8M", "--max-bytes",
            "1M"})).hasMessageContaining("at most --max-bytes");
        assertThat(DeviceAllReduceBenchmark.sizes(1 << 20, 256 << 20)).containsExactly(1 << 20, 4 << 20, 16 << 20,
                64 << 20, 256 << 20);
        assertThat(DeviceAllReduceBenchmark.sizes(1 << 20, 3 << 20)).containsExactly(1 << 20, 3 << 20);
        assertThat(DeviceAllReduceBenchmark.sizes(4096, 4096)).containsExactly(4096);
        assertThat(DeviceAllReduceBenchmark.busGbps(1_000_000, 1000)).as("n = 2: bus bandwidth = algorithm "
                + "bandwidth").isEqualTo(1.0);
    }
}
