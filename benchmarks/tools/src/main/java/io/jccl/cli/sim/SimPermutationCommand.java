package io.jccl.cli.sim;

import io.jccl.metaroce.sim.dc.ClosConfig;
import io.jccl.metaroce.sim.dc.Flows;
import io.jccl.metaroce.sim.dc.Workloads;
import picocli.CommandLine.Command;

import java.util.function.Supplier;

/** {@code jccl sim permutation}: every host sends one flow to another, a random permutation, all at once. */
@Command(name = "permutation", mixinStandardHelpOptions = true,
        description = {"Simulates a permutation on a Clos fabric: every host sends --flow-bytes to one other host and"
                + " receives from one, all starting together; one thread, virtual time, deterministic for a seed.",
                ClosWorkloadCommand.FLOWS_EXIT_STATUS})
public final class SimPermutationCommand extends ClosWorkloadCommand {
    /** Created by picocli. */
    public SimPermutationCommand() {
        super("permutation");
    }

    @Override
    Supplier<Flows> workload(ClosConfig config) {
        if (config.hosts() < 2) {
            throw usage("a permutation needs --hosts >= 2");
        }
        long bytes = options.flowBytes(spec);
        return () -> Workloads.permutation(config.hosts(), bytes, options.seed.seed());
    }
}
