package io.jccl.cli.run;

import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A rank that sleeps for ten minutes (tests of what ends it). With an argument, it first sends its standard error
 * to the file {@code <argument>.<rank>}, where a test can read it after the launcher (and so the pipe) is gone; then
 * prints {@code sleeping pid <pid>} on standard output.
 */
public final class SleepingRankMain {
    private SleepingRankMain() {
    }

    /**
     * @param args optionally, where standard error goes (the rank is appended)
     * @throws Exception never in practice
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0) {
            String file = args[0] + "." + System.getenv().getOrDefault("JCCL_RANK", "x");
            System.setErr(new PrintStream(new FileOutputStream(file, true), true, StandardCharsets.UTF_8));
        }
        System.out.println("sleeping pid " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(Duration.ofMinutes(10));
    }
}
