package io.jccl.cli.tools;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code scripts/aot-cache.sh}, the logic by which {@code ./jccl} builds and chooses its AOT cache, against a fake JDK
 * whose {@code java} only writes the file a training run would (or fails, or hangs) and records each call: it builds
 * the cache once and then only prints the options that use it; it builds again when the jars, the JVM flags or the
 * JDK change; a training that fails, a cache no JVM can map and an interrupted build leave no cache that a later run
 * uses; {@code JCCL_AOT=0} turns it all off. Each run takes milliseconds.
 */
@Tag("integration")
class AotCacheScriptTest {
    private static final Path SCRIPT = Path.of("..", "..", "scripts", "aot-cache.sh").toAbsolutePath().normalize();
    /** The fake java: $JDK/mode says what it does; every call is appended to $JDK/calls. */
    private static final String FAKE_JAVA = """
            #!/bin/bash
            jdk="$(cd "$(dirname "$0")/.." && pwd)"
            echo "$*" >> "$jdk/calls"
            mode="$(cat "$jdk/mode")"
            out=; verify=
            for a in "$@"; do
              case "$a" in
                -XX:AOTCacheOutput=*) out="${a#-XX:AOTCacheOutput=}" ;;
                -XX:AOTMode=on) verify=1 ;;
              esac
            done
            if [ -n "$out" ]; then
              printf 'half a cache' > "$out"
              case "$mode" in
                fail) echo "training failed" >&2; exit 1 ;;
                hang) touch "$jdk/training"; sleep 600; exit 0 ;;
              esac
              printf 'a cache for %s' "$(cat "$jdk/release")" > "$out"
              echo "trained"
              exit 0
            fi
            if [ -n "$verify" ] && [ "$mode" = unmappable ]; then echo "Unable to map shared spaces" >&2; exit 1; fi
            exit 0
            """;

    @TempDir
    Path tmp;
    private Path jdk;
    private Path dist;

    private record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    @BeforeEach
    void fakeJdkAndDist() throws IOException {
        jdk = Files.createDirectories(tmp.resolve("jdk"));
        Path java = Files.createDirectories(jdk.resolve("bin")).resolve("java");
        Files.writeString(java, FAKE_JAVA);
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(jdk.resolve("release"), "IMPLEMENTOR=\"Fake\"\nJAVA_RUNTIME_VERSION=\"25.0.1+1\"\n");
        mode("ok");
        dist = Files.createDirectories(tmp.resolve("dist"));
        Files.writeString(dist.resolve("jvm.options"), "--add-modules=jdk.incubator.vector -XX:+UseParallelGC\n");
        Files.createDirectories(dist.resolve("lib"));
        Files.writeString(dist.resolve("lib/jccl-launcher.jar"), "launcher classes");
        Files.writeString(dist.resolve("lib/picocli.jar"), "picocli classes");
    }

    private void mode(String m) throws IOException {
        Files.writeString(jdk.resolve("mode"), m);
    }

    private Process start(String jcclAot) throws IOException {
        assertThat(SCRIPT).exists();
        ProcessBuilder pb = new ProcessBuilder("bash", SCRIPT.toString(), dist.toString())
                .redirectOutput(tmp.resolve("out").toFile()).redirectError(tmp.resolve("err").toFile());
        pb.environment().put("JAVA_HOME", jdk.toString());
        if (jcclAot == null) {
            pb.environment().remove("JCCL_AOT");
        } else {
            pb.environment().put("JCCL_AOT", jcclAot);
        }
        return pb.start();
    }

    private Run finish(Process p) throws Exception {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("aot-cache.sh did not end");
        }
        return new Run(p.exitValue(), Files.readString(tmp.resolve("out")), Files.readString(tmp.resolve("err")));
    }

    private Run run() throws Exception {
        return finish(start(null));
    }

    private List<String> calls() throws IOException {
        Path calls = jdk.resolve("calls");
        return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
    }

    private String options() {
        return "-XX:AOTCache=" + dist.resolve("jccl.aot") + "\n-Xlog:aot*=off,cds*=off\n";
    }

    /** @return the files of dist, less lib/, jvm.options and the lock */
    private List<String> aotFiles() throws IOException {
        try (Stream<Path> s = Files.list(dist)) {
            return s.map(f -> f.getFileName().toString())
                    .filter(n -> !n.equals("lib") && !n.equals("jvm.options") && !n.equals(".jccl.aot.lock"))
                    .sorted().toList();
        }
    }

    @Test
    void itBuildsTheCacheOnceThenOnlyPrintsTheOptionsThatUseIt() throws Exception {
        Run first = run();
        assertThat(first.exit()).as("%s", first).isZero();
        assertThat(first.out()).as("%s", first).isEqualTo(options());
        assertThat(first.err()).as("%s", first).contains("jccl: building the AOT cache").contains("AOT cache built");
        assertThat(Files.readString(dist.resolve("jccl.aot"))).startsWith("a cache for");
        assertThat(aotFiles()).containsExactly("jccl.aot", "jccl.aot.key", "jccl.aot.log");
        List<String> calls = calls();
        assertThat(calls).as("a training run, then a JVM that must map the new cache").hasSize(2);
        assertThat(calls.get(0)).contains("-XX:AOTCacheOutput=" + dist.resolve("jccl.aot.tmp."), "-XX:+UseParallelGC",
                "-cp " + dist.resolve("lib") + "/*", "io.jccl.cli.Main aot-train");
        assertThat(calls.get(1)).contains("-XX:AOTCache=" + dist.resolve("jccl.aot.tmp."), "-XX:AOTMode=on");

        Run second = run();
        assertThat(second.out()).as("%s", second).isEqualTo(options());
        assertThat(second.err()).as("%s", second).isEmpty();
        assertThat(calls()).as("no second training").hasSize(2);
    }

    @Test
    void itBuildsAgainWhenAJarTheJvmFlagsOrTheJdkChange() throws Exception {
        run();
        Files.setLastModifiedTime(dist.resolve("lib/picocli.jar"), FileTime.fromMillis(1_000_000_000_000L));
        assertThat(run().out()).isEqualTo(options());
        assertThat(calls()).hasSize(4);
        Files.writeString(dist.resolve("jvm.options"), "--add-modules=jdk.incubator.vector -XX:+UseG1GC\n");
        assertThat(run().out()).isEqualTo(options());
        assertThat(calls()).hasSize(6);
        Files.writeString(jdk.resolve("release"), "IMPLEMENTOR=\"Fake\"\nJAVA_RUNTIME_VERSION=\"25.0.2+7\"\n");
        assertThat(run().out()).isEqualTo(options());
        assertThat(calls()).hasSize(8);
        assertThat(Files.readString(dist.resolve("jccl.aot"))).contains("25.0.2+7");
        assertThat(run().out()).isEqualTo(options());
        assertThat(calls()).hasSize(8);
    }

    @Test
    void aFailedTrainingLeavesNoCacheToUseAndIsNotRetriedUntilTheBuildChanges() throws Exception {
        mode("fail");
        Run failed = run();
        assertThat(failed.exit()).as("%s", failed).isZero();
        assertThat(failed.out()).as("no options: the JVM runs without a cache").isEmpty();
        assertThat(failed.err()).as("%s", failed).contains("could not build the AOT cache (see "
                + dist.resolve("jccl.aot.log") + "); running without it");
        assertThat(Files.readString(dist.resolve("jccl.aot.log"))).contains("training failed");
        assertThat(aotFiles()).containsExactly("jccl.aot.failed", "jccl.aot.log");

        Run again = run();
        assertThat(again.out() + again.err()).as("silent, and no new attempt: %s", again).isEmpty();
        assertThat(calls()).hasSize(1);

        mode("ok");
        Files.setLastModifiedTime(dist.resolve("lib/jccl-launcher.jar"), FileTime.fromMillis(1_000_000_000_000L));
        assertThat(run().out()).as("a new build is tried again").isEqualTo(options());
        assertThat(aotFiles()).containsExactly("jccl.aot", "jccl.aot.key", "jccl.aot.log");
    }

    @Test
    void aStaleCacheIsNotUsedWhenItsRebuildFails() throws Exception {
        assertThat(run().out()).isEqualTo(options());
        mode("fail");
        Files.setLastModifiedTime(dist.resolve("lib/jccl-launcher.jar"), FileTime.fromMillis(1_000_000_000_000L));
        Run r = run();
        assertThat(r.out()).as("%s", r).isEmpty();
        assertThat(r.err()).as("%s", r).contains("could not build the AOT cache");
    }

    @Test
    void aCacheNoJvmCanMapIsNotInstalled() throws Exception {
        mode("unmappable");
        Run r = run();
        assertThat(r.out()).as("%s", r).isEmpty();
        assertThat(Files.readString(dist.resolve("jccl.aot.log"))).contains("Unable to map shared spaces");
        assertThat(aotFiles()).containsExactly("jccl.aot.failed", "jccl.aot.log");
    }

    @Test
    void anInterruptedBuildLeavesNothingALaterRunUsesAndIsTriedAgain() throws Exception {
        mode("hang");
        Process p = start(null);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(jdk.resolve("training"))) {
            assertThat(System.nanoTime() - deadline).as("the training run starts").isNegative();
            Thread.sleep(10);
        }
        assertThat(aotFiles()).as("half a cache, under a temporary name").anyMatch(n -> n.startsWith("jccl.aot.tmp."));
        List<ProcessHandle> training = p.descendants().toList();
        p.destroy();                                          // SIGTERM, as Ctrl-C or kill would
        training.forEach(ProcessHandle::destroy);
        Run interrupted = finish(p);
        // The training's processes inherited the script's lock; until they are gone a new run finds it taken and,
        // by design, runs without the cache. Wait for them (the bound only turns a hang into a failure).
        for (ProcessHandle h : training) {
            h.onExit().get(30, TimeUnit.SECONDS);
        }
        assertThat(interrupted.exit()).as("%s", interrupted).isNotZero();
        assertThat(interrupted.out()).as("%s", interrupted).isEmpty();
        assertThat(aotFiles()).as("no cache, no temporary file, and not marked as failed")
                .containsExactly("jccl.aot.log");

        mode("ok");
        assertThat(run().out()).isEqualTo(options());
        assertThat(aotFiles()).containsExactly("jccl.aot", "jccl.aot.key", "jccl.aot.log");
    }

    @Test
    void jcclAotZeroBuildsAndUsesNothingAndAnythingButZeroOrOneIsRefused() throws Exception {
        Run off = finish(start("0"));
        assertThat(off.exit()).isZero();
        assertThat(off.out() + off.err()).isEmpty();
        assertThat(calls()).isEmpty();
        assertThat(aotFiles()).isEmpty();

        Run bad = finish(start("yes"));
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).isEqualTo("jccl: JCCL_AOT='yes' must be 0 (no AOT cache) or 1 (build and use it, the "
                + "default)\n");
        assertThat(calls()).isEmpty();

        assertThat(finish(start("1")).out()).isEqualTo(options());
    }

    @Test
    void theTrainingRunsInACleanEnvironment() throws Exception {
        Path env = jdk.resolve("env");
        Files.writeString(jdk.resolve("bin/java"), FAKE_JAVA.replace("echo \"$*\" >> \"$jdk/calls\"",
                "echo \"$*\" >> \"$jdk/calls\"; env > \"$jdk/env\""), StandardCharsets.UTF_8);
        ProcessBuilder pb = new ProcessBuilder("bash", SCRIPT.toString(), dist.toString())
                .redirectOutput(tmp.resolve("out").toFile()).redirectError(tmp.resolve("err").toFile());
        pb.environment().put("JAVA_HOME", jdk.toString());
        pb.environment().put("JCCL_RANK", "3");
        pb.environment().put("OMPI_COMM_WORLD_RANK", "3");
        pb.environment().put("JCCL_NET", "tcp");
        assertThat(finish(pb.start()).out()).isEqualTo(options());
        assertThat(Files.readString(env)).doesNotContain("JCCL_RANK", "OMPI_", "JCCL_NET").contains("JAVA_HOME=" + jdk);
    }
}
