package io.jccl.cli.run;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jccl run ... >file 2>&1}: the launcher's standard output and error are one file, and every rank writes
 * long lines to both at once. Every line of the file must be one whole line of one rank, with its prefix.
 */
@Tag("integration")
class OutputLinesTest {
    private static final int RANKS = 4;
    private static final int LINES_PER_STREAM = 2000;
    private static final int BODY_CHARS = 300;
    private static final Pattern LINE = Pattern.compile("\\[(\\d+)] (out|err) (\\d+) (\\d+) (x+)");

    @TempDir
    Path tmp;

    @Test
    void linesOfBothStreamsOfEveryRankStayWholeInOneFile() throws Exception {
        Path file = tmp.resolve("job.log");
        String script = "body=$(printf '%0" + BODY_CHARS + "d' 0 | tr 0 x); i=0; while [ $i -lt " + LINES_PER_STREAM
                + " ]; do echo \"out $JCCL_RANK $i $body\"; echo \"err $JCCL_RANK $i $body\" >&2; i=$((i+1)); done";
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(RunCommand.jvmFlags());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.jccl.cli.Main", "run", "-np",
                Integer.toString(RANKS), "--", "sh", "-c", script));
        // As the shell does for >file 2>&1: both descriptors share one open file.
        Process launcher = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(file.toFile()).start();
        launcher.getOutputStream().close();
        assertThat(launcher.waitFor(120, TimeUnit.SECONDS)).as("the launcher ended").isTrue();
        assertThat(launcher.exitValue()).isZero();

        List<String> bad = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.startsWith("WARNING: Using incubator modules")) {
                continue;   // the launcher JVM's own, before any rank starts
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches() || !m.group(1).equals(m.group(3)) || m.group(5).length() != BODY_CHARS
                    || !seen.add(m.group(2) + " " + m.group(3) + " " + m.group(4))) {
                bad.add(line);
            }
        }
        assertThat(bad.size()).as("malformed, spliced or repeated lines; the first: %s",
                bad.subList(0, Math.min(4, bad.size()))).isZero();
        assertThat(seen).hasSize(RANKS * 2 * LINES_PER_STREAM);
    }
}
