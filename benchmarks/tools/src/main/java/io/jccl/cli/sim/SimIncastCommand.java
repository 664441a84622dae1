package io.jccl.cli.sim;

import io.jccl.metaroce.sim.dc.ClosConfig;
import io.jccl.metaroce.sim.dc.Flows;
import io.jccl.metaroce.sim.dc.Workloads;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.function.Supplier;

/** {@code jccl sim incast}: N hosts send to one at once. */
@Command(name = "incast", mixinStandardHelpOptions = true,
        description = {"Simulates an N:1 incast on a Clos fabric: hosts 1..N each send --flow-bytes to host 0, all "
                + "starting together; one thread, virtual time, deterministic for a seed.",
                ClosWorkloadCommand.FLOWS_EXIT_STATUS})
public final class SimIncastCommand extends ClosWorkloadCommand {
    @Option(names = "--senders", defaultValue = "16", description = "Senders (1 to hosts - 1). "
            + "Default: ${DEFAULT-VALUE}.")
    int senders;

    /** Created by picocli. */
    public SimIncastCommand() {
        super("incast");
    }

    @Override
    Supplier<Flows> workload(ClosConfig config) {
        if (senders < 1 || senders >= config.hosts()) {
            throw usage("--senders must be in 1-" + (config.hosts() - 1) + " for " + config.hosts() + " hosts, not "
                    + senders);
        }
        long bytes = options.flowBytes(spec);
        return () -> Workloads.incast(config.hosts(), senders, bytes);
    }
}
