package io.jccl.cli.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code jccl bench}: the benchmark group; it only holds subcommands. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Benchmarks (see the subcommands).",
        subcommands = {TransportBenchCommand.class, CollectiveBenchCommand.class, LossBenchCommand.class,
                TcpBenchCommand.class})
public final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** Created by picocli. */
    public BenchCommand() {
    }

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "Missing benchmark: try 'jccl bench transport --help', 'jccl bench collective --help', "
                        + "'jccl bench loss --help' or 'jccl bench tcp --help'");
    }
}
