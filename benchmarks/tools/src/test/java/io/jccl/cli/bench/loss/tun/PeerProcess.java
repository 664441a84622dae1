package io.jccl.cli.bench.loss.tun;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link LinkPeer} child JVM in one side's namespace: its output lines (stdout and stderr together) are collected,
 * so a failure message can show them.
 */
final class PeerProcess implements AutoCloseable {
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> transcript = java.util.Collections.synchronizedList(new ArrayList<>());

    private PeerProcess(Process process) {
        this.process = process;
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    transcript.add(line);
                    lines.add(line);
                }
            } catch (IOException e) {
                transcript.add("(reading the output failed: " + e + ")");
            }
        });
    }

    /**
     * Starts {@code java LinkPeer <arguments>} in {@code side}'s namespace with the test class path.
     *
     * @param jvmOptions extra options before the main class
     */
    static PeerProcess start(TunLossLink link, int side, List<String> jvmOptions, String... arguments)
            throws IOException {
        List<String> command = new ArrayList<>(link.commandPrefix(side));
        command.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(LinkPeer.class.getName());
        command.addAll(List.of(arguments));
        return new PeerProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /** Options that start a small JVM quickly: the peers of a test move at most some MiB. */
    static List<String> smallJvm() {
        return List.of("-XX:+UseSerialGC", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-Xshare:auto");
    }

    /** @return the rest of the first line starting with {@code prefix + " "} */
    String await(String prefix, long timeoutMs) throws InterruptedException {
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            long leftNs = deadlineNs - System.nanoTime();
            String line = lines.poll(Math.max(0, leftNs), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("no '" + prefix + "' line within " + timeoutMs + " ms; alive="
                        + process.isAlive() + ", output: " + transcript);
            }
            if (line.startsWith(prefix + " ")) {
                return line.substring(prefix.length() + 1);
            }
        }
    }

    /** Writes one line to its stdin. */
    void tell(String line) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** Waits for a clean exit. */
    void awaitExit(long timeoutMs) throws InterruptedException {
        if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
            throw new AssertionError("still running after " + timeoutMs + " ms, output: " + transcript);
        }
        if (process.exitValue() != 0) {
            throw new AssertionError("exit status " + process.exitValue() + ", output: " + transcript);
        }
    }

    /** @return the value of {@code key=value} in a RESULT line */
    static long field(String result, String key) {
        for (String word : result.split(" ")) {
            if (word.startsWith(key + "=")) {
                return Long.parseLong(word.substring(key.length() + 1));
            }
        }
        throw new AssertionError("no " + key + " in '" + result + "'");
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
