/**
 * {@code jccl soak}: the seeded random workload of {@link io.jccl.check.Workload} on rank JVMs of this host,
 * every element of every operation checked, with hang detection and, over MetaRoCE, an impairing relay.
 */
package io.jccl.cli.soak;
