/**
 * The {@code metaroce} transport, and the ranks above it, over the deterministic fabric simulator: each rank's two
 * MetaRoCE endpoints are nodes of one {@link io.jccl.metaroce.sim.Simulator}, its transport runs in invoker mode on
 * the simulator's virtual clock with seeded randomness, and each rank's own logic is stepped after every interaction
 * with its nodes. One thread, one seed: a run replays exactly.
 */
package io.jccl.metaroce.simnet;
