package io.jccl.cli;

import io.jccl.cli.bench.BenchCommand;
import io.jccl.cli.perf.PerfCommand;
import io.jccl.cli.run.RunCommand;
import io.jccl.cli.soak.SoakCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code ./jccl}. */
@Command(name = "jccl", mixinStandardHelpOptions = true, versionProvider = VersionCommand.Provider.class,
        description = "JCCL: collective communication for the JVM.",
        subcommands = {VersionCommand.class, SelftestCommand.class, PerfCommand.class, RunCommand.class, BenchCommand.class,
            FabricCommand.class, SoakCommand.class, io.jccl.cli.sim.SimCommand.class, DevicesCommand.class,
            io.jccl.cli.aot.AotTrainCommand.class, CommandLine.HelpCommand.class})
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
        CommandLine cl = new CommandLine(new Main());
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("jccl " + cmd.getCommandName() + ": " + e.getMessage());
            return 1;
        });
        // jccl run: everything from the program's name on is the program's, dashes included.
        cl.getSubcommands().get("run").setStopAtPositional(true);
        return cl.execute(args);
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
