package io.jccl.testing;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts real JVMs running a main class of the test class path, with the same JCCL flags as this JVM, and
 * keeps their output in files for diagnosis.
 */
public final class JvmProcesses {
    /** The heap limit of a started JVM unless its options set one. */
    public static final String DEFAULT_MAX_HEAP = "-Xmx512m";

    private JvmProcesses() {
    }

    /** A started JVM. */
    public record Jvm(Process process, Path output) {
        /** @return exit code, or -1 if it did not exit in time (then it is killed) */
        public int await(long timeoutSeconds) throws InterruptedException {
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
                return -1;
            }
            return process.exitValue();
        }

        /** @return everything the JVM printed */
        public String outputText() {
            try {
                return Files.readString(output);
            } catch (IOException e) {
                return "(no output: " + e + ")";
            }
        }
    }

    /** JVM options of this JVM that JCCL needs (module, native access and open flags). */
    public static List<String> inheritedJvmOptions() {
        List<String> out = new ArrayList<>();
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-modules") || a.startsWith("--enable-native-access") || a.startsWith("--add-opens")
                    || a.startsWith("-XX:+UseParallelGC")) {
                out.add(a);
            }
        }
        return out;
    }

    /**
     * @param mainClass class with a main method on this JVM's class path
     * @param args      program arguments
     * @param env       extra environment variables
     * @param name      used for the output file name
     * @return the started JVM
     */
    public static Jvm start(Class<?> mainClass, List<String> args, Map<String, String> env, String name)
            throws IOException {
        return start(mainClass, args, env, name, inheritedJvmOptions());
    }

    /**
     * @param jvmOptions the JVM options to use instead of this JVM's; without an {@code -Xmx} among them the JVM gets
     *                   {@value #DEFAULT_MAX_HEAP}
     * @see #start(Class, List, Map, String)
     */
    public static Jvm start(Class<?> mainClass, List<String> args, Map<String, String> env, String name,
                            List<String> jvmOptions) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        if (jvmOptions.stream().noneMatch(o -> o.startsWith("-Xmx"))) {
            cmd.add(DEFAULT_MAX_HEAP);
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass.getName());
        cmd.addAll(args);
        Path dir = Path.of("target", "process-output");
        Files.createDirectories(dir);
        Path out = dir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().putAll(env);
        return new Jvm(pb.start(), out);
    }
}
