package io.jccl.cli.sim;

import io.jccl.metaroce.sim.dc.ClosConfig;
import io.jccl.metaroce.sim.dc.Workloads;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code jccl sim alltoall}: every host sends a flow to every other, all at once. */
@Command(name = "alltoall", mixinStandardHelpOptions = true,
        description = {"Simulates an all-to-all on a Clos fabric: every host sends --flow-bytes to every other host, "
                + "all starting together (N x (N - 1) flows); jobUs is the time until the last finished. One thread, "
                + "virtual time, deterministic for a seed.",
                "Exit status: 0 when every flow finished, 1 when some did not by --until-us (or a checked byte arrived "
                        + "wrong), 2 for a usage error."})
public final class SimAllToAllCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClosOptions options;

    /** Created by picocli. */
    public SimAllToAllCommand() {
    }

    @Override
    public Integer call() {
        ClosConfig config = options.config(spec);
        if (config.hosts() < 2 || config.hosts() > 4096) {
            throw new CommandLine.ParameterException(spec.commandLine(), "an all-to-all needs --hosts in 2-4096, not "
                    + config.hosts());
        }
        long bytes = options.flowBytes(spec);
        return options.runAndReport(spec, "alltoall", config,
                () -> Workloads.allToAll(config.hosts(), bytes));
    }
}
