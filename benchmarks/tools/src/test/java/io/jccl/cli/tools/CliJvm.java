package io.jccl.cli.tools;

import io.jccl.cli.Main;
import io.jccl.cli.run.RunCommand;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code jccl} in a JVM of its own, as {@code ./jccl} would (JCCL's JVM flags), with no {@code JCCL_*} variable
 * inherited from the test's environment: for the tests that need what one CLI run in the test JVM cannot give (an
 * exit status from {@code main}, an environment, JVM options).
 */
public final class CliJvm {
    private CliJvm() {
    }

    /**
     * A finished run.
     *
     * @param code  its exit status
     * @param lines standard output and error together, without the JVM's incubator-module warning
     */
    public record Run(int code, List<String> lines) {
        @Override
        public String toString() {
            return "exit " + code + "\n" + String.join("\n", lines);
        }
    }

    /**
     * @param tmp            a folder for the captured output
     * @param env            variables to set (after every {@code JCCL_*} one is removed)
     * @param jvmOptions     JVM options after JCCL's own
     * @param classPath      the class path
     * @param timeoutSeconds how long it may take before it and its children are killed (an AssertionError)
     * @param args           {@code jccl}'s arguments
     * @return how it ended
     * @throws Exception when it cannot be started or its output read
     */
    public static Run run(Path tmp, Map<String, String> env, List<String> jvmOptions, String classPath,
                          long timeoutSeconds, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(RunCommand.jvmFlags());
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", classPath, Main.class.getName()));
        cmd.addAll(List.of(args));
        Path out = tmp.resolve("out-" + System.nanoTime());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("JCCL_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("jccl " + String.join(" ", args) + " did not end: " + Files.readString(out));
        }
        return new Run(p.exitValue(), Files.readAllLines(out, StandardCharsets.UTF_8).stream()
                .filter(l -> !l.startsWith("WARNING: Using incubator modules")).toList());
    }
}
