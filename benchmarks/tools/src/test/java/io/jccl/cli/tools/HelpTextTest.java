package io.jccl.cli.tools;

import io.jccl.cli.CliRun;
import io.jccl.cli.Main;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --help} of every command and subcommand, found by walking picocli's tree (so a new command is covered
 * without editing this test): exit 0, a usage text, and nothing on standard error (picocli warns there when a
 * description is not a valid format string, e.g. an unescaped '%').
 */
class HelpTextTest {
    @Test
    void everyCommandsHelpPrintsUsageAndNoWarning() {
        List<List<String>> paths = new ArrayList<>();
        collect(Main.commandLine(), new ArrayList<>(), paths);
        assertThat(paths).hasSizeGreaterThan(5);
        for (List<String> path : paths) {
            List<String> args = new ArrayList<>(path);
            args.add("--help");
            CliRun r = CliRun.of(args.toArray(String[]::new));
            assertThat(r.code()).as("jccl %s", args).isZero();
            assertThat(r.out()).as("jccl %s", args).contains("Usage: jccl");
            assertThat(r.err()).as("jccl %s printed on standard error", args).isEmpty();
        }
    }

    /** Every command below {@code cl} that takes --help (picocli's own help command takes none). */
    private static void collect(CommandLine cl, List<String> path, List<List<String>> into) {
        into.add(List.copyOf(path));
        for (var e : cl.getSubcommands().entrySet()) {
            CommandLine sub = e.getValue();
            if (sub.getCommandSpec().userObject() instanceof CommandLine.HelpCommand
                    || !sub.getCommandName().equals(e.getKey())) {
                continue;   // picocli's help command; aliases are the same command again
            }
            List<String> p = new ArrayList<>(path);
            p.add(e.getKey());
            collect(sub, p, into);
        }
    }
}
