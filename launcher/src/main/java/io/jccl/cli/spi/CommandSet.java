package io.jccl.cli.spi;

import java.util.List;

/**
 * Subcommands of {@code jccl} that another jar contributes: the benchmark and diagnostic tools
 * ({@code benchmarks/tools}: perf, bench, sim, soak, fabric, devices, aot-train) register one through
 * {@code META-INF/services/io.jccl.cli.spi.CommandSet}, so the launcher does not compile against them or against the
 * transports' internals they use. {@link io.jccl.cli.Main#commandLine()} adds every set on the class path.
 */
public interface CommandSet {
    /**
     * @return new picocli command objects (instances of classes annotated with {@code @Command}), each added as a
     *         subcommand of {@code jccl} under its own name
     */
    List<Object> commands();
}
