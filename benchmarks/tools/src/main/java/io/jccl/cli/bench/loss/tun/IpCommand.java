package io.jccl.cli.bench.loss.tun;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs iproute2's {@code ip} as a child process: exit status checked, stderr in the error, bounded in time.
 */
final class IpCommand {
    /** No {@code ip} call here takes more than milliseconds; this only turns a hang into an error. */
    private static final long TIMEOUT_MS = 20_000;
    /** Where {@code ip} lives when the PATH of a service or a test runner leaves out the sbin directories. */
    private static final List<String> FALLBACK_DIRECTORIES = List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin");
    private static final Optional<Path> BINARY = find();

    private IpCommand() {
    }

    /** @return the {@code ip} executable, from PATH or the usual sbin directories */
    static Optional<Path> binary() {
        return BINARY;
    }

    private static Optional<Path> find() {
        List<String> directories = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String directory : path.split(File.pathSeparator)) {
                if (!directory.isEmpty()) {
                    directories.add(directory);
                }
            }
        }
        directories.addAll(FALLBACK_DIRECTORIES);
        for (String directory : directories) {
            Path candidate = Path.of(directory, "ip");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /**
     * Runs {@code ip <arguments>}.
     *
     * @return what it wrote to stdout
     * @throws IOException when it cannot start, exits non-zero (stderr included) or outlives the time limit
     */
    static String run(String... arguments) throws IOException {
        Path ip = BINARY.orElseThrow(() -> new IOException("no 'ip' executable (iproute2) on PATH or in "
                + FALLBACK_DIRECTORIES));
        List<String> command = new ArrayList<>(arguments.length + 1);
        command.add(ip.toString());
        command.addAll(List.of(arguments));
        String shown = String.join(" ", command);
        Process process = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        // Both pipes are drained at once, so a child that fills one cannot stall on it.
        Drain stdout = new Drain(process.getInputStream());
        Drain stderr = new Drain(process.getErrorStream());
        try {
            if (!process.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException("'" + shown + "' did not finish within " + TIMEOUT_MS + " ms");
            }
            String out = stdout.text();
            String err = stderr.text().strip();
            if (process.exitValue() != 0) {
                throw new IOException("'" + shown + "' failed with exit status " + process.exitValue()
                        + (err.isEmpty() ? "" : ": " + err));
            }
            return out;
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running '" + shown + "'", e);
        }
    }

    /** Reads a child's stream to its end on a virtual thread. */
    private static final class Drain {
        private final Thread thread;
        private volatile byte[] bytes = new byte[0];
        private volatile IOException failure;

        Drain(InputStream in) {
            thread = Thread.ofVirtual().start(() -> {
                try (in) {
                    bytes = in.readAllBytes();
                } catch (IOException e) {
                    failure = e;
                }
            });
        }

        String text() throws IOException, InterruptedException {
            // The child has exited; its end of the pipe is closed unless a grandchild holds it.
            if (!thread.join(Duration.ofMillis(TIMEOUT_MS))) {
                throw new IOException("output of 'ip' still open " + TIMEOUT_MS + " ms after it exited");
            }
            if (failure != null) {
                throw failure;
            }
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }
}
