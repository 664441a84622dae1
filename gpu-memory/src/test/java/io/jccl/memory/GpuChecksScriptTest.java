package io.jccl.memory;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code benchmarks/gpu/run-gpu-checks.sh} without a GPU, run with a PATH that holds only fake vendor tools (or
 * nothing): no nvidia-smi or rocm-smi means "no GPU: skipped" and exit 0 before any build; an nvidia-smi that
 * fails (no driver) too; a working fake nvidia-smi or rocm-smi is detected as cuda or hip ({@code --detect-only}
 * stops there); bad arguments exit 2. Each run takes milliseconds: nothing is built.
 */
@Tag("integration")
class GpuChecksScriptTest {
    private static final Path SCRIPT = Path.of("..", "benchmarks", "gpu", "run-gpu-checks.sh").toAbsolutePath()
            .normalize();

    private record Run(int exit, String output) {
    }

    private static Path bash() {
        for (String p : List.of("/bin/bash", "/usr/bin/bash")) {
            if (Files.isExecutable(Path.of(p))) {
                return Path.of(p);
            }
        }
        assumeTrue(false, "no bash at /bin/bash or /usr/bin/bash");
        return null;
    }

    private static Run run(Path path, String... args) throws IOException, InterruptedException {
        assertThat(SCRIPT).exists();
        List<String> cmd = new ArrayList<>(List.of(bash().toString(), SCRIPT.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PATH", path.toString());
        Process p = pb.start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the script did not finish in 30 s");
        }
        return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes()));
    }

    private static void fakeTool(Path dir, String name, int exit, String output) throws IOException {
        Path tool = dir.resolve(name);
        String quoted = "'" + output.replace("'", "'\\''") + "'";   // a shell word, quotes and all
        Files.writeString(tool, "#!" + bash() + "\nprintf '%s\\n' " + quoted + "\nexit " + exit + "\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void withoutNvidiaSmiOrRocmSmiItSkipsAndExitsZero(@TempDir Path emptyPath) throws Exception {
        long start = System.nanoTime();
        Run r = run(emptyPath);
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).isEqualTo("no GPU: skipped (no nvidia-smi; no rocm-smi or rocminfo)\n");
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).as("nothing built").isLessThan(20);
    }

    @Test
    void anNvidiaSmiWithoutADriverIsNoGpu(@TempDir Path path) throws Exception {
        fakeTool(path, "nvidia-smi", 9, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                + "driver.");
        Run r = run(path);
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).isEqualTo("no GPU: skipped (nvidia-smi found no GPU: NVIDIA-SMI has failed because it "
                + "couldn't communicate with the NVIDIA driver.; no rocm-smi or rocminfo)\n");
    }

    @Test
    void aWorkingNvidiaSmiMeansCudaAndRocmSmiMeansHip(@TempDir Path path) throws Exception {
        Path nvidia = Files.createDirectory(path.resolve("nvidia"));
        fakeTool(nvidia, "nvidia-smi", 0, "GPU 0: NVIDIA H200 (UUID: GPU-0000)");
        Run cuda = run(nvidia, "--detect-only");
        assertThat(cuda.exit()).as(cuda.output()).isZero();
        assertThat(cuda.output()).isEqualTo("detected: cuda: GPU 0: NVIDIA H200 (UUID: GPU-0000)\n");
        Path amd = Files.createDirectory(path.resolve("amd"));
        fakeTool(amd, "rocm-smi", 0, "GPU[0]\t\t: Card Series: \tAMD Instinct MI300X");
        Run hip = run(amd, "--detect-only");
        assertThat(hip.exit()).as(hip.output()).isZero();
        assertThat(hip.output()).isEqualTo("detected: hip: GPU[0]\t\t: Card Series: \tAMD Instinct MI300X\n");
        Run forced = run(path, "--domain", "cuda", "--detect-only");
        assertThat(forced.output()).isEqualTo("detected: cuda: (--domain cuda: detection skipped)\n");
    }

    @Test
    void badArgumentsExitTwo(@TempDir Path emptyPath) throws Exception {
        for (String[] args : new String[][] {{"--frobnicate"}, {"--domain", "rocm"}, {"--max-bytes", "lots"},
            {"--budget-s", "5"}}) {
            Run r = run(emptyPath, args);
            assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.output()).contains("usage: ");
        }
    }
}
