package io.jccl.cli.sim;

import io.jccl.metaroce.sim.dc.ClosConfig;
import io.jccl.metaroce.sim.dc.Workloads;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code jccl sim permutation}: every host sends one flow to another, a random permutation, all at once. */
@Command(name = "permutation", mixinStandardHelpOptions = true,
        description = {"Simulates a permutation on a Clos fabric: every host sends --flow-bytes to one other host and"
                + " receives from one, all starting together; one thread, virtual time, deterministic for a seed.",
                "Exit status: 0 when every flow finished, 1 when some did not by --until-us (or a checked byte arrived "
                        + "wrong), 2 for a usage error."})
public final class SimPermutationCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClosOptions options;

    /** Created by picocli. */
    public SimPermutationCommand() {
    }

    @Override
    public Integer call() {
        ClosConfig config = options.config(spec);
        if (config.hosts() < 2) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "a permutation needs --hosts >= 2");
        }
        long bytes = options.flowBytes(spec);
        return options.runAndReport(spec, "permutation", config,
                () -> Workloads.permutation(config.hosts(), bytes, options.seed));
    }
}
