package io.jccl.cli.bench;

import io.jccl.cli.CliRun;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Checks a command's usage errors: each bad set of options must exit 2 and say why on standard error (tests). */
public final class UsageErrors {
    private UsageErrors() {
    }

    /**
     * Runs {@code jccl command... bad[k]...} for each k: exit status 2, {@code why[k]} on standard error and nothing on
     * standard output.
     *
     * @param command the command's words, e.g. {@code {"bench", "loss"}}
     * @param bad     the options of each run
     * @param why     what each run's standard error must contain
     */
    public static void assertEach(String[] command, String[][] bad, String[] why) {
        assertThat(why).hasSameSizeAs(bad);
        for (int k = 0; k < bad.length; k++) {
            List<String> args = new ArrayList<>(List.of(command));
            args.addAll(List.of(bad[k]));
            CliRun r = CliRun.of(args.toArray(String[]::new));
            String what = String.join(" ", bad[k]);
            assertThat(r.code()).as(what).isEqualTo(2);
            assertThat(r.err()).as(what).contains(why[k]);
            assertThat(r.out()).as(what).isEmpty();
        }
    }
}
