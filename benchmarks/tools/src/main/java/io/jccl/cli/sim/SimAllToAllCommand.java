package io.jccl.cli.sim;

import io.jccl.metaroce.sim.dc.ClosConfig;
import io.jccl.metaroce.sim.dc.Flows;
import io.jccl.metaroce.sim.dc.Workloads;
import picocli.CommandLine.Command;

import java.util.function.Supplier;

/** {@code jccl sim alltoall}: every host sends a flow to every other, all at once. */
@Command(name = "alltoall", mixinStandardHelpOptions = true,
        description = {"Simulates an all-to-all on a Clos fabric: every host sends --flow-bytes to every other host, "
                + "all starting together (N x (N - 1) flows); jobUs is the time until the last finished. One thread, "
                + "virtual time, deterministic for a seed.",
                ClosWorkloadCommand.FLOWS_EXIT_STATUS})
public final class SimAllToAllCommand extends ClosWorkloadCommand {
    /** Created by picocli. */
    public SimAllToAllCommand() {
        super("alltoall");
    }

    @Override
    Supplier<Flows> workload(ClosConfig config) {
        if (config.hosts() < 2 || config.hosts() > 4096) {
            throw usage("an all-to-all needs --hosts in 2-4096, not " + config.hosts());
        }
        long bytes = options.flowBytes(spec);
        return () -> Workloads.allToAll(config.hosts(), bytes);
    }
}
