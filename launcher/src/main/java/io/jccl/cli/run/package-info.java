/**
 * {@code jccl run}: the launcher that starts ranks on this and other hosts with the environment
 * {@link io.jccl.Communicator#fromEnvironment()} reads, prefixes their output, and stops them together
 * ({@link io.jccl.cli.run.RunCommand}); {@link io.jccl.cli.run.RunSmokeMain} is a first program to run with it.
 */
package io.jccl.cli.run;
