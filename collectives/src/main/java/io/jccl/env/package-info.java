/**
 * Communicators from a launcher's environment: {@link io.jccl.env.LaunchEnvironment} reads rank, size, local rank
 * and the rendezvous from the variables of {@code jccl run}, Open MPI, PMI, torchrun, Slurm or a Kubernetes
 * indexed Job (each a pure function of the environment), and {@link io.jccl.env.EnvCommunicator} joins the
 * communicator for {@link io.jccl.Communicator#fromEnvironment()}. {@link io.jccl.env.SlurmNodeList} expands
 * Slurm host lists. See docs/launching.md.
 */
package io.jccl.env;
