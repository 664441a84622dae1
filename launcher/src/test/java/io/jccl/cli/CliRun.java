package io.jccl.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One {@code jccl} command run in this JVM with its output captured (tests).
 *
 * @param code the exit code
 * @param out  what it printed on standard output
 * @param err  what it printed on standard error
 */
public record CliRun(int code, String out, String err) {
    /** Runs {@code jccl args...}; one at a time, since it swaps {@code System.out} and {@code System.err}. */
    public static synchronized CliRun of(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int code = Main.execute(args);
            return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    /**
     * @return standard output read as the one JSON object a {@code --json} command prints; fails the test when it is
     *         not exactly one line
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> json() {
        String[] lines = out.strip().split("\n");
        if (lines.length != 1) {
            throw new AssertionError("exactly one line on stdout expected, got: " + out + err);
        }
        return (Map<String, Object>) io.jccl.cli.bench.MiniJson.parse(lines[0]);
    }
}
