package io.jccl.memory;

import io.jccl.JcclException;
import io.jccl.memory.cuda.CudaMemoryDomain;
import io.jccl.memory.hip.HipMemoryDomain;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The checks {@code benchmarks/gpu/run-gpu-checks.sh} runs on a GPU machine, in one JVM: the domains' availability,
 * the device's properties, the device conformance suite for the domain (with {@value DeviceDomains#REQUIRE_PROPERTY}
 * set, so an unavailable domain fails instead of skipping), and {@link DeviceAllReduceBenchmark}; then a summary.
 *
 * <pre>
 * java $(cat target/gpu-checks/jvm.options) -cp ... io.jccl.memory.GpuChecks --domain cuda
 *      [--min-bytes 1M] [--max-bytes 256M] [--out target/gpu-checks] [--skip-tests] [--skip-bench]
 * </pre>
 * Exit status: 0 when every test passed and every benchmark result was exact, 1 otherwise, 2 for bad arguments or
 * an unavailable domain.
 */
public final class GpuChecks {
    /** The conformance test class of each device domain. */
    static final Map<String, String> SUITES = Map.of(
            CudaMemoryDomain.NAME, "io.jccl.memory.cuda.CudaDomainConformanceTest",
            HipMemoryDomain.NAME, "io.jccl.memory.hip.HipDomainConformanceTest");

    private GpuChecks() {
    }

    /**
     * What to run.
     *
     * @param domain   {@code cuda} or {@code hip}
     * @param minBytes smallest benchmark size
     * @param maxBytes largest benchmark size
     * @param out      where the summary and the table are written
     * @param tests    whether to run the conformance suite
     * @param bench    whether to run the benchmark
     */
    record Options(String domain, long minBytes, long maxBytes, Path out, boolean tests, boolean bench) {
    }

    /**
     * What came out.
     *
     * @param passed  tests passed
     * @param failed  tests failed
     * @param skipped tests skipped or aborted
     * @param rows    benchmark rows
     * @param summary the summary text printed last
     */
    record Result(long passed, long failed, long skipped, List<DeviceAllReduceBenchmark.Row> rows, String summary) {
        boolean ok() {
            return failed == 0 && rows.stream().allMatch(DeviceAllReduceBenchmark.Row::exact);
        }
    }

    /** @param args see the class documentation */
    public static void main(String[] args) {
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("GpuChecks: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            Result r = run(o, System.out);
            System.exit(r.ok() ? 0 : 1);
        } catch (JcclException e) {
            System.out.println("FAILED: " + e.code() + ": " + e.detail());
            System.exit(2);
        }
    }

    static Options parse(String[] args) {
        String domain = null;
        long min = 1L << 20;
        long max = 256L << 20;
        Path out = Path.of("target", "gpu-checks");
        boolean tests = true;
        boolean bench = true;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--domain" -> domain = value(args, ++i, a).toLowerCase(Locale.ROOT);
                case "--min-bytes" -> min = bytes(value(args, ++i, a), a);
                case "--max-bytes" -> max = bytes(value(args, ++i, a), a);
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--skip-tests" -> tests = false;
                case "--skip-bench" -> bench = false;
                default -> throw new IllegalArgumentException("unknown argument '" + a + "'; usage: --domain cuda|hip "
                        + "[--min-bytes 1M] [--max-bytes 256M] [--out DIR] [--skip-tests] [--skip-bench]");
            }
        }
        if (domain == null || !SUITES.containsKey(domain)) {
            throw new IllegalArgumentException("--domain must be one of " + SUITES.keySet() + ", got " + domain);
        }
        if (min < 4 || max < min) {
            throw new IllegalArgumentException("--min-bytes must be at least 4 and at most --max-bytes, got " + min
                    + " and " + max);
        }
        return new Options(domain, min, max, out, tests, bench);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }

    /** @return "256M" as 268435456 (suffixes K, M, G: powers of 1024) */
    static long bytes(String s, String flag) {
        String t = s.trim().toUpperCase(Locale.ROOT);
        long unit = 1;
        if (t.endsWith("K") || t.endsWith("M") || t.endsWith("G")) {
            unit = switch (t.charAt(t.length() - 1)) {
                case 'K' -> 1L << 10;
                case 'M' -> 1L << 20;
                default -> 1L << 30;
            };
            t = t.substring(0, t.length() - 1);
        }
        try {
            return Math.multiplyExact(Long.parseLong(t), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(flag + " must be a byte count like 1M or 4096, got '" + s + "'");
        }
    }

    /**
     * Runs the checks and prints as it goes, the summary last.
     *
     * @param o   what to run
     * @param out where to print
     * @return the counts, rows and summary
     */
    static Result run(Options o, PrintStream out) {
        out.println("== JCCL GPU checks: " + o.domain() + " ==");
        for (Map.Entry<String, Availability> e : MemoryDomains.availability().entrySet()) {
            out.println("domain " + e.getKey() + ": " + (e.getValue().available() ? "available"
                    : "unavailable: " + e.getValue().reason()));
        }
        MemoryDomainProvider provider = MemoryDomains.select(o.domain());   // fails with the reason
        String device = describe(provider);
        out.println("device: " + device);
        out.flush();

        long passed = 0;
        long failed = 0;
        long skipped = 0;
        String suite = SUITES.get(o.domain());
        if (o.tests()) {
            String before = System.getProperty(DeviceDomains.REQUIRE_PROPERTY);
            System.setProperty(DeviceDomains.REQUIRE_PROPERTY, o.domain());
            try {
                TestExecutionSummary s = runSuite(suite, out);
                passed = s.getTestsSucceededCount();
                failed = s.getTestsFailedCount();
                skipped = s.getTestsSkippedCount() + s.getTestsAbortedCount();
            } finally {
                if (before == null) {
                    System.clearProperty(DeviceDomains.REQUIRE_PROPERTY);
                } else {
                    System.setProperty(DeviceDomains.REQUIRE_PROPERTY, before);
                }
            }
        }

        List<DeviceAllReduceBenchmark.Row> rows = List.of();
        StringBuilder table = new StringBuilder();
        if (o.bench()) {
            out.println("benchmark: all-reduce, float32 sum, in place, " + DeviceAllReduceBenchmark.RANKS
                    + " in-JVM ranks (local transport), " + o.domain() + " buffers staged through pinned memory vs "
                    + "host buffers");
            out.print(DeviceAllReduceBenchmark.header());
            out.flush();
            rows = DeviceAllReduceBenchmark.run(provider, DeviceAllReduceBenchmark.sizes(o.minBytes(), o.maxBytes()),
                    out);
            table.append(DeviceAllReduceBenchmark.header());
            for (DeviceAllReduceBenchmark.Row r : rows) {
                table.append(DeviceAllReduceBenchmark.formatRow(r)).append('\n');
            }
        }

        StringBuilder summary = new StringBuilder();
        summary.append("== summary: ").append(o.domain()).append(" ==\n");
        summary.append("device    : ").append(device).append('\n');
        summary.append("tests     : ").append(o.tests() ? passed + " passed, " + failed + " failed, " + skipped
                + " skipped (" + suite.substring(suite.lastIndexOf('.') + 1) + ")" : "not run").append('\n');
        summary.append("benchmark : ").append(o.bench() ? rows.size() + " sizes, " + (rows.stream()
                .allMatch(DeviceAllReduceBenchmark.Row::exact) ? "every result exact" : "WRONG RESULTS")
                : "not run").append('\n');
        summary.append(table);
        boolean ok = failed == 0 && rows.stream().allMatch(DeviceAllReduceBenchmark.Row::exact);
        summary.append("result    : ").append(ok ? "PASS" : "FAIL").append('\n');
        out.print(summary);
        out.flush();
        try {
            Files.createDirectories(o.out());
            Files.writeString(o.out().resolve("summary-" + o.domain() + ".txt"), summary.toString());
        } catch (IOException e) {
            out.println("(could not write the summary under " + o.out() + ": " + e + ")");
        }
        return new Result(passed, failed, skipped, rows, summary.toString());
    }

    /** @return the device's name, count, memory and, for CUDA and HIP, the runtime's versions */
    private static String describe(MemoryDomainProvider provider) {
        try (MemoryDomain d = provider.open(0)) {
            DeviceProperties p = d.properties();
            int count = d.deviceCount();
            String s = p.name() + ", " + count + " device" + (count == 1 ? "" : "s") + ", "
                    + (p.totalMemoryBytes() >> 20) + " MiB";
            if (d instanceof CudaMemoryDomain c) {
                s += "; CUDA runtime " + cudaVersion(c.runtimeVersion()) + " (inside JCuda), driver supports CUDA "
                        + cudaVersion(c.driverVersion());
            } else if (d instanceof HipMemoryDomain h) {
                s += "; HIP runtime " + h.runtimeVersion() + " from " + h.library();
            }
            return s;
        }
    }

    private static String cudaVersion(int v) {
        return v / 1000 + "." + v % 1000 / 10;
    }

    /** Runs one test class through the JUnit Platform, printing a line per test. */
    private static TestExecutionSummary runSuite(String className, PrintStream out) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(className)).build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        TestExecutionListener lines = new TestExecutionListener() {
            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                out.println("SKIP " + id.getDisplayName() + ": " + reason);
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (!id.isTest() && result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                    return;
                }
                String status = switch (result.getStatus()) {
                    case SUCCESSFUL -> "PASS";
                    case ABORTED -> "SKIP";
                    case FAILED -> "FAIL";
                };
                out.println(status + " " + id.getDisplayName() + result.getThrowable()
                        .map(t -> ": " + t.getClass().getSimpleName() + ": " + firstLine(t.getMessage())).orElse(""));
                out.flush();
            }
        };
        out.println("tests: " + className);
        launcher.execute(request, summary, lines);
        return summary.getSummary();
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
