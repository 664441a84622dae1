package io.jccl.cli.sim;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code jccl sim}: the simulation group; it only holds subcommands. */
@Command(name = "sim", mixinStandardHelpOptions = true,
        description = "Deterministic simulations, one thread on virtual time (see the subcommands).",
        subcommands = {SimCollectivesCommand.class, SimPermutationCommand.class, SimIncastCommand.class,
            SimAllToAllCommand.class, SimAllReduceCommand.class})
public final class SimCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** Created by picocli. */
    public SimCommand() {
    }

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "Missing simulation: try 'jccl sim collectives --help' or 'jccl sim permutation --help'");
    }
}
