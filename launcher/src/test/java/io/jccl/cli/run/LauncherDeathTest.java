package io.jccl.cli.run;

import io.jccl.cli.LauncherWatch;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code jccl run} launcher killed with SIGKILL cannot stop its ranks: they must notice and stop themselves
 * ({@link LauncherWatch}, injected by {@link RankMain}). The bounds are generous: they only tell a rank that stops
 * from one that runs on.
 */
@Tag("integration")
class LauncherDeathTest {
    private static final Pattern SLEEPING = Pattern.compile("\\[(\\d+)] sleeping pid (\\d+)");
    private static final long EXIT_BOUND_S = 60;

    @TempDir
    Path tmp;

    @Test
    void ranksStopSoonAfterTheirLauncherIsKilledWithSigkill() throws Exception {
        Path errBase = tmp.resolve("rank-stderr");
        RunCommandTest.Launcher launcher = new RunCommandTest.Launcher(Map.of(), List.of("-np", "2", "--",
                "io.jccl.cli.run.SleepingRankMain", errBase.toString()));
        List<ProcessHandle> ranks = new ArrayList<>();
        try {
            long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (launcher.out.stream().filter(l -> SLEEPING.matcher(l).matches()).count() < 2) {
                assertThat(System.nanoTime() - deadlineNs).as("%s %s", launcher.out, launcher.err).isNegative();
                Thread.sleep(20);
            }
            for (String line : launcher.out) {
                Matcher m = SLEEPING.matcher(line);
                if (m.matches()) {
                    ranks.add(ProcessHandle.of(Long.parseLong(m.group(2))).orElseThrow());
                }
            }
            launcher.process.destroyForcibly();   // SIGKILL: the launcher cannot stop anything itself
            assertThat(launcher.process.waitFor(EXIT_BOUND_S, TimeUnit.SECONDS)).isTrue();

            for (ProcessHandle rank : ranks) {
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(EXIT_BOUND_S);
                while (rank.isAlive() && System.nanoTime() - end < 0) {
                    Thread.sleep(50);
                }
                assertThat(rank.isAlive()).as("rank pid %d still runs %d s after its launcher was killed", rank.pid(),
                        EXIT_BOUND_S).isFalse();
            }
            for (int r = 0; r < 2; r++) {
                String err = Files.readString(Path.of(errBase + "." + r), StandardCharsets.UTF_8);
                assertThat(err).contains("jccl run: rank " + r + ": the launcher (pid " + launcher.process.pid()
                        + ") is gone (killed or crashed); stopping this rank now");
            }
        } finally {
            ranks.forEach(ProcessHandle::destroyForcibly);
            launcher.process.destroyForcibly();
        }
    }

    @Test
    void aRankWhoseLauncherDiedBeforeItStartedStopsAtOnce() throws Exception {
        // The rank's parent is this test JVM, not the pid the variable names: as if the launcher had died and the
        // rank been handed to another parent before it started watching.
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(RunCommand.jvmFlags());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), RankMain.class.getName(),
                SleepingRankMain.class.getName()));
        Path outFile = tmp.resolve("rank-output");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(outFile.toFile());
        pb.environment().put(LauncherWatch.PID_VARIABLE, "1");
        pb.environment().put("JCCL_RANK", "5");
        Process p = pb.start();
        try {
            p.getOutputStream().close();
            boolean exited = p.waitFor(EXIT_BOUND_S, TimeUnit.SECONDS);
            String output = Files.readString(outFile, StandardCharsets.UTF_8);
            assertThat(exited).as(output).isTrue();
            assertThat(p.exitValue()).as(output).isEqualTo(LauncherWatch.EXIT_LAUNCHER_GONE);
            assertThat(output).contains("jccl run: rank 5: the launcher (pid 1) is gone (killed or crashed); "
                    + "stopping this rank now, with exit status 3").doesNotContain("sleeping pid");
        } finally {
            p.destroyForcibly();
        }
    }
}
