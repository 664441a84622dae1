package io.jccl.cli.sim;

import io.jccl.CommConfig;
import io.jccl.metaroce.sim.dc.ClosConfig;
import io.jccl.metaroce.sim.dc.Workloads;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code jccl sim allreduce}: a ring all-reduce across every host, as its data moves. */
@Command(name = "allreduce", mixinStandardHelpOptions = true,
        description = {"Simulates a ring all-reduce of --bytes per host across every host of a Clos fabric: 2 (N - 1) "
                + "steps, each host sending a chunk of --bytes / N to the next once it has its predecessor's chunk of "
                + "the step before (reductions take no time). jobUs is the all-reduce's time, busBwGBps its bus "
                + "bandwidth (2 (N - 1) / N x bytes / time, as nccl-tests). One thread, virtual time, deterministic.",
                "Exit status: 0 when every step finished, 1 when some did not by --until-us (or a checked byte arrived "
                        + "wrong), 2 for a usage error."})
public final class SimAllReduceCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClosOptions options;

    @Option(names = "--bytes", defaultValue = "64M", description = "Bytes reduced per host (K/M/G suffixes). "
            + "Default: ${DEFAULT-VALUE}.")
    String bytes;

    /** Created by picocli. */
    public SimAllReduceCommand() {
    }

    @Override
    public Integer call() {
        ClosConfig config = options.config(spec);
        long n;
        try {
            n = CommConfig.parseBytes(bytes);
            return options.runAndReport(spec, "allreduce", config, () -> Workloads.ringAllReduce(config.hosts(), n));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
