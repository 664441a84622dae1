/**
 * The {@code jccl} subcommands that are tools rather than the launcher: {@code fabric} (the impairing relay),
 * {@code devices} (RDMA devices and the offload decision), {@code aot-train} (the training run of the AOT cache,
 * started by {@code scripts/aot-cache.sh}), and {@link io.jccl.cli.tools.ToolCommands}, which registers them with the
 * benchmarks ({@code perf}, {@code bench}, {@code sim}, {@code soak}).
 */
package io.jccl.cli.tools;
