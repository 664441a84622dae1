package io.jccl.cli.run;

import io.jccl.cli.CliRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jccl run} as users run it: the launcher is a JVM of its own (started like {@code ./jccl} does, with the
 * JVM flags of jvm.options), its ranks real processes (JVMs for a main class, shell commands otherwise).
 */
@Tag("integration")
class RunCommandTest {
    private static final Pattern PREFIXED = Pattern.compile("\\[(\\d+)] (.*)");

    @TempDir
    Path tmp;

    /** A finished launcher: exit status and what it printed, line by line. */
    record Result(int code, List<String> out, List<String> err) {
        String errText() {
            return String.join("\n", err);
        }

        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + String.join("\n", out) + "\n--- stderr\n" + errText();
        }
    }

    /** A running launcher whose output lines are collected as they come. */
    static final class Launcher {
        final Process process;
        final List<String> out = new CopyOnWriteArrayList<>();
        final List<String> err = new CopyOnWriteArrayList<>();
        private final List<Thread> readers = new ArrayList<>();

        Launcher(Map<String, String> env, List<String> args) throws IOException {
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(RunCommand.jvmFlags());
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.add("io.jccl.cli.Main");
            cmd.add("run");
            cmd.addAll(args);
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().putAll(env);
            process = pb.start();
            process.getOutputStream().close();
            readers.add(read(process.getInputStream(), out));
            readers.add(read(process.getErrorStream(), err));
        }

        private static Thread read(InputStream in, List<String> into) {
            return Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    for (String l = r.readLine(); l != null; l = r.readLine()) {
                        // The launcher JVM's own warning about the incubator module is not the launcher's output.
                        if (!l.startsWith("WARNING: Using incubator modules")) {
                            into.add(l);
                        }
                    }
                } catch (IOException e) {
                    // process gone
                }
            });
        }

        /** Waits until {@code count} lines of stdout end with {@code suffix}. */
        void awaitLines(String suffix, int count, long timeoutS) throws InterruptedException {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
            while (out.stream().filter(l -> l.endsWith(suffix)).count() < count) {
                assertThat(System.nanoTime() - end).as("waiting for %d lines ending %s; got %s %s", count, suffix,
                        out, err).isNegative();
                Thread.sleep(20);
            }
        }

        Result await(long timeoutS) throws InterruptedException {
            if (!process.waitFor(timeoutS, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new AssertionError("the launcher did not end in " + timeoutS + " s: " + out + " " + err);
            }
            for (Thread t : readers) {
                t.join(5000);
            }
            return new Result(process.exitValue(), List.copyOf(out), List.copyOf(err));
        }
    }

    private static Result run(Map<String, String> env, String... args) throws Exception {
        return new Launcher(env, List.of(args)).await(120);
    }

    private static Result run(String... args) throws Exception {
        return run(Map.of(), args);
    }

    @Test
    void fourRanksAllReduceExactlyAndEveryLineCarriesItsRank() throws Exception {
        Result r = run("-np", "4", "--", "io.jccl.cli.run.RunSmokeMain");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).as(r.toString()).hasSize(4);
        for (String line : r.out()) {
            Matcher m = PREFIXED.matcher(line);
            assertThat(m.matches()).as(line).isTrue();
            String rank = m.group(1);
            assertThat(m.group(2)).isEqualTo("rank " + rank + " of 4 (local " + rank + " of 4, jccl): all-reduce of"
                    + " 4099 floats exact");
        }
        assertThat(r.out().stream().map(l -> l.substring(0, 3))).containsExactlyInAnyOrder("[0]", "[1]", "[2]",
                "[3]");
        // The ranks' stderr (the JVM's incubator warning) is prefixed too; the launcher itself says nothing.
        assertThat(r.err()).as(r.toString()).isNotEmpty().allMatch(l -> PREFIXED.matcher(l).matches());
    }

    @Test
    void jcclDebugInfoShowsEachRanksInitLineWithItsRankAndTransportAndTheDefaultNone() throws Exception {
        Result r = run(Map.of("JCCL_DEBUG", "INFO", "JCCL_DEBUG_SUBSYS", "INIT"), "-np", "2", "--transport", "tcp",
                "--", "io.jccl.cli.run.RunSmokeMain");
        assertThat(r.code()).as(r.toString()).isZero();
        for (int rank = 0; rank < 2; rank++) {
            // The rank's slf4j-simple (WARN in simplelogger.properties) was told to let INFO through.
            assertThat(r.errText()).as(r.toString()).containsPattern("\\[" + rank + "] \\[INFO] CommInit - "
                    + "\\[INIT] comm0 rank " + rank + " \\(pid \\d+ on [^)]+\\) nranks 2 - Init COMPLETE: tcp to rank "
                    + (1 - rank));
            assertThat(r.errText()).contains("[" + rank + "] [INFO] JcclLog - [INIT] JCCL version ");
        }
        assertThat(r.errText()).doesNotContain("[ENV]");

        Result quiet = run(Map.of("JCCL_DEBUG", "", "JCCL_DEBUG_SUBSYS", ""), "-np", "2", "--transport", "tcp", "--",
                "io.jccl.cli.run.RunSmokeMain");
        assertThat(quiet.code()).as(quiet.toString()).isZero();
        assertThat(quiet.errText()).as(quiet.toString()).doesNotContain("[INIT]").doesNotContain("[INFO]");
    }

    @Test
    void aFailingRankStopsTheOthersAndIsNamed() throws Exception {
        Result r = run("-np", "4", "--", "sh", "-c",
                "if [ \"$JCCL_RANK\" = 2 ]; then echo bye; exit 3; fi; echo up; sleep 60");
        assertThat(r.code()).as(r.toString()).isEqualTo(3);
        assertThat(r.out()).contains("[2] bye");
        assertThat(r.errText()).as(r.toString())
                .containsPattern("jccl run: rank 2 \\(pid \\d+ on localhost\\) exited with status 3")
                .contains("jccl run: ranks 0, 1, 3 were stopped by the launcher after rank 2 failed (SIGTERM)")
                .contains("jccl run: 1 of 4 ranks failed");
    }

    @Test
    void aRankKilledBySigkillIsNamedWithTheSignal() throws Exception {
        Result r = run("-np", "3", "--", "sh", "-c",
                "if [ \"$JCCL_RANK\" = 1 ]; then kill -9 $$; fi; sleep 60");
        assertThat(r.code()).as(r.toString()).isEqualTo(137);
        assertThat(r.errText()).as(r.toString())
                .containsPattern("jccl run: rank 1 \\(pid \\d+ on localhost\\) was killed by signal 9 \\(SIGKILL\\)")
                .contains("ranks 0, 2 were stopped by the launcher after rank 1 failed");
    }

    @Test
    void keepGoingLetsTheOthersFinishAndStillFails() throws Exception {
        Result r = run("-np", "3", "--keep-going", "--", "sh", "-c",
                "if [ \"$JCCL_RANK\" = 1 ]; then exit 5; fi; sleep 1; echo finished");
        assertThat(r.code()).as(r.toString()).isEqualTo(5);
        assertThat(r.out()).containsExactlyInAnyOrder("[0] finished", "[2] finished");
        assertThat(r.errText()).as(r.toString()).contains("rank 1 (pid").contains("exited with status 5")
                .contains("the others keep going (--keep-going)").contains("1 of 3 ranks failed")
                .doesNotContain("stopped by the launcher");
    }

    @Test
    void theTimeoutStopsEveryRank() throws Exception {
        long t0 = System.nanoTime();
        Result r = run("-np", "2", "--timeout", "1", "--grace", "1", "--", "sleep", "60");
        assertThat(r.code()).as(r.toString()).isEqualTo(124);
        assertThat(r.errText()).contains("jccl run: the job ran past --timeout 1 s; stopping every rank")
                .contains("ranks 0, 1 were stopped by the launcher at the --timeout of 1 s (SIGTERM)");
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).isLessThan(30);
    }

    @Test
    void aRankIgnoringSigtermIsKilledAfterTheGrace() throws Exception {
        Result r = run("-np", "2", "--timeout", "1", "--grace", "0.5", "--", "sh", "-c",
                "trap '' TERM; echo ready; while :; do sleep 0.1; done");
        assertThat(r.code()).as(r.toString()).isEqualTo(124);
        assertThat(r.errText()).contains("ranks 0, 1 were stopped by the launcher at the --timeout of 1 s (SIGTERM;"
                + " ranks 0, 1 were killed with SIGKILL after the 0.5 s grace)");
    }

    @Test
    void sigtermToTheLauncherReachesTheRanks() throws Exception {
        Launcher l = new Launcher(Map.of(), List.of("-np", "2", "--", "sh", "-c",
                "trap 'echo got TERM; exit 0' TERM; echo ready; while :; do sleep 0.1; done"));
        l.awaitLines("ready", 2, 60);
        l.process.toHandle().destroy();   // SIGTERM
        Result r = l.await(60);
        assertThat(r.code()).as(r.toString()).isEqualTo(143);
        assertThat(r.out()).as(r.toString()).contains("[0] got TERM", "[1] got TERM");
        assertThat(r.errText()).contains("jccl run: got SIGTERM; stopping every rank")
                .contains("ranks 0, 1 were stopped by the launcher on SIGTERM");
    }

    @Test
    void remoteRanksGoThroughTheLaunchAgentWithTheExportedVariables() throws Exception {
        Path agent = fakeSsh();
        Result r = run(Map.of("JCCL_RUN_TEST_FOO", "from-launcher"), "-np", "3", "-H", "localhost:1,node-b:2",
                "--launch-agent", agent + " -o BatchMode=yes", "-x", "JCCL_RUN_TEST_FOO", "-x", "BAR=baz qux",
                "--transport", "tcp", "--", "sh", "-c",
                "echo \"$JCCL_RANK $JCCL_LOCAL_RANK/$JCCL_LOCAL_SIZE/$JCCL_SIZE ${FAKE_SSH_HOST:-here}"
                        + " $JCCL_RUN_TEST_FOO $BAR $JCCL_NET ${JCCL_COMM_ID%%@*} $PWD\"");
        assertThat(r.code()).as(r.toString()).isZero();
        String dir = Path.of("").toAbsolutePath().toString();
        assertThat(r.out()).as(r.toString()).containsExactlyInAnyOrder(
                "[0] 0 0/1/3 here from-launcher baz qux tcp jccl1 " + dir,
                "[1] 1 0/2/3 node-b from-launcher baz qux tcp jccl1 " + dir,
                "[2] 2 1/2/3 node-b from-launcher baz qux tcp jccl1 " + dir);
    }

    @Test
    void javaRanksRunOnARemoteHostToo() throws Exception {
        Path agent = fakeSsh();
        Result r = run(Map.of("JCCL_RUN_SSH", agent.toString()), "-np", "2", "-H", "localhost,node-b", "--",
                "io.jccl.cli.run.RunSmokeMain");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).as(r.toString()).containsExactlyInAnyOrder(
                "[0] rank 0 of 2 (local 0 of 1, jccl): all-reduce of 4099 floats exact",
                "[1] rank 1 of 2 (local 0 of 1, jccl): all-reduce of 4099 floats exact");
    }

    @Test
    void aRankThatCannotStartIsReported() throws Exception {
        Result r = run("-np", "2", "--", "/nonexistent/jccl-program");
        assertThat(r.code()).as(r.toString()).isEqualTo(127);
        assertThat(r.errText()).contains("jccl run: cannot start rank 0 on localhost")
                .contains("/nonexistent/jccl-program");
    }

    @Test
    void usageErrorsNameTheProblem() throws Exception {
        assertThat(CliRun.of("run", "-np", "2").err()).contains("no command after --");
        assertThat(CliRun.of("run", "-np", "0", "--", "true").err()).contains("-np 0 is out of range");
        assertThat(CliRun.of("run", "-np", "2", "--transport", "udp", "--", "true").err())
                .contains("--transport 'udp' is not one of auto, aeron-ipc, aeron-udp, metaroce, shm, tcp");
        assertThat(CliRun.of("run", "-np", "5", "-H", "a:2,b:2", "--", "true").err())
                .contains("-np 5 needs more slots than the 4 given (a:2, b:2)");
        assertThat(CliRun.of("run", "-np", "2", "-x", "JCCL_RANK=3", "--", "true").err())
                .contains("-x JCCL_RANK: the launcher sets JCCL_RANK for each rank itself");
        assertThat(CliRun.of("run", "-np", "2", "-x", "1BAD", "--", "true").err())
                .contains("'1BAD' is not a variable name");
        assertThat(CliRun.of("run", "-np", "2", "--timeout", "0", "--", "true").err())
                .contains("--timeout 0.0 must be a positive number of seconds");
        Path hf = tmp.resolve("hosts");
        Files.writeString(hf, "# cluster\nnode1 slots=2\nnode2 slots=many\n");
        CliRun bad = CliRun.of("run", "-np", "2", "--hostfile", hf.toString(), "--", "true");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains(hf + " line 3: slots 'many' is not a whole number");
        assertThat(CliRun.of("run", "-np", "2", "--hostfile", hf.toString(), "-H", "a", "--", "true").err())
                .contains("give -H or --hostfile, not both");
        assertThat(CliRun.of("run", "-np", "2", "--hostfile", tmp.resolve("none").toString(), "--", "true").err())
                .contains("cannot read the hostfile");
    }

    /** A stand-in for ssh: ignores its options and the host, runs the command here in an empty environment. */
    private Path fakeSsh() throws IOException {
        Path agent = tmp.resolve("fake-ssh");
        Files.writeString(agent, """
                #!/bin/sh
                # usage: fake-ssh [options] host command
                host=""; script=""
                for a in "$@"; do host=$script; script=$a; done
                exec env -i PATH="$PATH" HOME="$HOME" FAKE_SSH_HOST="$host" sh -c "$script"
                """);
        Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rwx------"));
        return agent;
    }
}
