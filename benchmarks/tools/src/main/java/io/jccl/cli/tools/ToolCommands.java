package io.jccl.cli.tools;

import io.jccl.cli.bench.BenchCommand;
import io.jccl.cli.perf.PerfCommand;
import io.jccl.cli.sim.SimCommand;
import io.jccl.cli.soak.SoakCommand;
import io.jccl.cli.spi.CommandSet;

import java.util.List;

/** The tools this module adds to {@code jccl}, registered in {@code META-INF/services/io.jccl.cli.spi.CommandSet}. */
public final class ToolCommands implements CommandSet {
    /** Created by {@link java.util.ServiceLoader}. */
    public ToolCommands() {
    }

    @Override
    public List<Object> commands() {
        return List.of(new PerfCommand(), new BenchCommand(), new FabricCommand(), new SoakCommand(), new SimCommand(),
                new DevicesCommand(), new AotTrainCommand());
    }
}
