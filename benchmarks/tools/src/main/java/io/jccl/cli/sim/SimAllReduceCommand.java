package io.jccl.cli.sim;

import io.jccl.CommConfig;
import io.jccl.metaroce.sim.dc.ClosConfig;
import io.jccl.metaroce.sim.dc.Flows;
import io.jccl.metaroce.sim.dc.Workloads;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.function.Supplier;

/** {@code jccl sim allreduce}: a ring all-reduce across every host, as its data moves. */
@Command(name = "allreduce", mixinStandardHelpOptions = true,
        description = {"Simulates a ring all-reduce of --bytes per host across every host of a Clos fabric: 2 (N - 1) "
                + "steps, each host sending a chunk of --bytes / N to the next once it has its predecessor's chunk of "
                + "the step before (reductions take no time). jobUs is the all-reduce's time, busBwGBps its bus "
                + "bandwidth (2 (N - 1) / N x bytes / time, as nccl-tests). One thread, virtual time, deterministic.",
                "Exit status: 0 when every step finished, 1 when some did not by --until-us (or a checked byte arrived "
                        + "wrong), 2 for a usage error."})
public final class SimAllReduceCommand extends ClosWorkloadCommand {
    @Option(names = "--bytes", defaultValue = "64M", description = "Bytes reduced per host (K/M/G suffixes). "
            + "Default: ${DEFAULT-VALUE}.")
    String bytes;

    /** Created by picocli. */
    public SimAllReduceCommand() {
        super("allreduce");
    }

    @Override
    Supplier<Flows> workload(ClosConfig config) {
        long n;
        try {
            n = CommConfig.parseBytes(bytes);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        return () -> Workloads.ringAllReduce(config.hosts(), n);
    }
}
