package io.jccl.cli.tools;

import io.jccl.cli.run.RunCommand;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The AOT cache as rank JVMs see it: a launcher JVM started as {@code ./jccl} starts it when the cache exists
 * ({@code -XX:AOTCache=... -Xlog:aot*=off,cds*=off}, from scripts/aot-cache.sh) gives the same options to the ranks of
 * {@code jccl run}, but not when {@code JCCL_AOT=0}; and a cache the JVMs cannot use (here a corrupt file: a stale
 * one fails the same way) breaks nothing and prints nothing, not even on a standard output that must carry exactly
 * one JSON object.
 */
@Tag("integration")
class AotRankJvmTest {
    @TempDir
    Path tmp;

    /** A finished launcher. */
    private record Result(int code, List<String> out, List<String> err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + String.join("\n", out) + "\n--- stderr\n"
                    + String.join("\n", err);
        }
    }

    /** A cache file no JVM can map: random bytes. */
    private Path corruptCache() throws Exception {
        byte[] junk = new byte[64 * 1024];
        new Random(15).nextBytes(junk);
        return Files.write(tmp.resolve("jccl.aot"), junk);
    }

    /** Runs {@code jccl ARGS} in a JVM with ./jccl's options and the AOT options for {@code cache}. */
    private Result jccl(Path cache, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(RunCommand.jvmFlags());
        cmd.addAll(List.of("-XX:AOTCache=" + cache, "-Xlog:aot*=off,cds*=off"));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.jccl.cli.Main"));
        cmd.addAll(List.of(args));
        Path out = tmp.resolve("out-" + System.nanoTime());
        Path err = tmp.resolve("err-" + System.nanoTime());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("JCCL_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("jccl did not end: " + Files.readString(out) + Files.readString(err));
        }
        return new Result(p.exitValue(), lines(out), lines(err));
    }

    private static List<String> lines(Path file) throws Exception {
        return Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                .filter(l -> !l.contains("WARNING: Using incubator modules")).toList();
    }

    @Test
    void jcclRunRanksGetTheLaunchersCacheAndACorruptOneBreaksNothing() throws Exception {
        Path cache = corruptCache();
        Result r = jccl(cache, Map.of(), "run", "-np", "2", "--", PrintJvmOptionsMain.class.getName());
        assertThat(r.code()).as("%s", r).isZero();
        for (int rank = 0; rank < 2; rank++) {
            assertThat(r.out()).as("%s", r).contains("[" + rank + "] jvm-option -XX:AOTCache=" + cache,
                    "[" + rank + "] jvm-option -Xlog:aot*=off,cds*=off");
        }
        assertThat(r.out()).as("nothing but the ranks' lines: %s", r)
                .allMatch(l -> l.matches("\\[[01]] jvm-option .*"));
        assertThat(r.err()).as("%s", r).isEmpty();
    }

    @Test
    void jcclAotZeroKeepsTheCacheFromTheRanks() throws Exception {
        Path cache = corruptCache();
        Result r = jccl(cache, Map.of("JCCL_AOT", "0"), "run", "-np", "2", "--", PrintJvmOptionsMain.class.getName());
        assertThat(r.code()).as("%s", r).isZero();
        assertThat(r.out()).as("%s", r).contains("[0] jvm-option --add-modules=jdk.incubator.vector",
                "[1] jvm-option --add-modules=jdk.incubator.vector");
        assertThat(r.out()).as("%s", r).noneMatch(l -> l.contains("AOTCache"));
    }

    @Test
    void perfRanksWithACacheTheyCannotUseStillPrintExactlyOneJsonObject() throws Exception {
        Result r = jccl(corruptCache(), Map.of(), "perf", "all_reduce", "-np", "2", "-b", "8", "-e", "8", "-w", "0",
                "-n", "1", "-J");
        assertThat(r.code()).as("%s", r).isZero();
        assertThat(r.out()).as("%s", r).singleElement().satisfies(l -> assertThat(l).startsWith("{\"results\":[")
                .endsWith("]}").contains("\"wrong\":0"));
        assertThat(r.err()).as("%s", r).noneMatch(l -> l.contains("[aot]") || l.contains("AOT cache"));
    }
}
