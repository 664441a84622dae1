package io.jccl.cli.sim;

import io.jccl.metaroce.sim.dc.ClosConfig;
import io.jccl.metaroce.sim.dc.Flows;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * A {@code jccl sim} command that runs one workload on a Clos fabric ({@code permutation}, {@code incast},
 * {@code alltoall}, {@code allreduce}): the fabric's options ({@link ClosOptions}), the workload's own checks, then one
 * run per protocol and loss, reported. A subclass says only what its workload is.
 */
abstract class ClosWorkloadCommand implements Callable<Integer> {
    /** The last paragraph of the help of the workloads made of flows. */
    static final String FLOWS_EXIT_STATUS = "Exit status: 0 when every flow finished, 1 when some did not by "
            + "--until-us (or a checked byte arrived wrong), 2 for a usage error.";

    @Spec
    CommandSpec spec;

    @Mixin
    ClosOptions options;

    private final String simulation;

    /** @param simulation the workload's name in the report (the subcommand's name) */
    ClosWorkloadCommand(String simulation) {
        this.simulation = simulation;
    }

    @Override
    public final Integer call() {
        ClosConfig config = options.config(spec);
        return options.runAndReport(spec, simulation, config, workload(config));
    }

    /**
     * Checks this workload's options against the fabric.
     *
     * @return what makes the workload's flows, a fresh set per run
     * @throws CommandLine.ParameterException when an option does not fit ({@link #usage})
     */
    abstract Supplier<Flows> workload(ClosConfig config);

    /** @return a usage error (exit status 2) saying {@code message} */
    final CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
