package io.jccl.cli;

import io.jccl.cli.run.RunCommand;
import io.jccl.cli.spi.CommandSet;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.ServiceLoader;

/** Entry point of {@code ./jccl}. */
@Command(name = "jccl", mixinStandardHelpOptions = true, versionProvider = VersionCommand.Provider.class,
        description = "JCCL: collective communication for the JVM.",
        subcommands = {VersionCommand.class, SelftestCommand.class, RunCommand.class})
public final class Main implements Runnable {
    /**
     * Exit status of a command whose environment is unusable: a malformed launcher variable or an invalid
     * {@code JCCL_*} setting (sysexits.h's {@code EX_CONFIG}). A usage error (a bad flag) exits with 2.
     */
    public static final int EXIT_CONFIG = 78;

    /** Creates the top-level command (picocli instantiates it). */
    public Main() {
    }

    /**
     * Runs the command line and exits with its code.
     *
     * @param args command line
     */
    public static void main(String[] args) {
        LogBackend.configure(System.getenv());
        System.exit(execute(args));
    }

    /**
     * Runs the command line without exiting (for tests).
     *
     * @param args command line
     * @return the exit code
     */
    public static int execute(String... args) {
        CommandLine cl = commandLine();
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("jccl " + cmd.getCommandName() + ": " + e.getMessage());
            return 1;
        });
        // jccl run: everything from the program's name on is the program's, dashes included.
        cl.getSubcommands().get("run").setStopAtPositional(true);
        return cl.execute(args);
    }

    /**
     * The whole command tree: the launcher's own commands, every {@link CommandSet} on the class path (the tools of
     * {@code benchmarks/tools}), then picocli's {@code help}.
     *
     * @return a new command line
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        for (CommandSet set : ServiceLoader.load(CommandSet.class)) {
            for (Object command : set.commands()) {
                cl.addSubcommand(command);
            }
        }
        cl.addSubcommand(new CommandLine.HelpCommand());
        return cl;
    }

    @Override
    public void run() {
        commandLine().usage(System.out);
    }
}
