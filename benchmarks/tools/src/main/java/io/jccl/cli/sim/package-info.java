/** {@code jccl sim}: deterministic simulations of the whole stack ({@code jccl sim collectives}). */
package io.jccl.cli.sim;
