/**
 * {@code jccl bench loss}: one transfer per transport and loss rate between two child JVMs, through an impairing
 * link ({@link io.jccl.cli.bench.loss.LossLink}): the user-space UDP relay ({@link io.jccl.cli.bench.loss.RelayLossLink},
 * MetaRoCE only) or a TUN packet relay between network namespaces ({@link io.jccl.cli.bench.loss.TunLink}, any IP
 * traffic). The command itself is {@link io.jccl.cli.bench.LossBenchCommand}.
 */
package io.jccl.cli.bench.loss;
