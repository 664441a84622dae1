/**
 * The deterministic lossy-fabric simulator that proves the MetaRoCE core, and the RoCEv2 go-back-N baseline it is
 * compared with.
 *
 * <ul>
 *   <li>{@link io.jccl.metaroce.sim.Simulator}: virtual time, an event heap ordered by (time, insertion), nodes that
 *       are {@link io.jccl.metaroce.protocol.Engine}s driven by the rule deliver / time out / collect.</li>
 *   <li>{@link io.jccl.metaroce.sim.Fabric}: per node a NIC port and a last-hop switch port, per node pair many
 *       routes; each a rate-limited queue with a buffer (tail drop), ECN marking and propagation delay; per-route
 *       impairments ({@link io.jccl.metaroce.impair.Impairments}), black holes and "all paths down" windows; reroutes
 *       move a path to another route.</li>
 *   <li>{@link io.jccl.metaroce.sim.TransferScenario}: builds endpoints with a
 *       {@link io.jccl.metaroce.sim.VerbsFactory}, posts checked work, runs, verifies every byte, guard zone,
 *       completion and order; replays from a seed.</li>
 *   <li>{@link io.jccl.metaroce.sim.GoBackNEndpoint}: the RoCEv2 baseline; {@link io.jccl.metaroce.sim.Protocols}
 *       names the protocols.</li>
 *   <li>{@link io.jccl.metaroce.sim.RateMonitor} and {@link io.jccl.metaroce.sim.IncastAnalysis}: per-sender rates,
 *       convergence to the fair share and Jain's fairness index.</li>
 * </ul>
 * Everything runs in virtual time from seeded {@link java.util.SplittableRandom}s: no clock, no threads.
 */
package io.jccl.metaroce.sim;

import io.jccl.metaroce.impair.Impairments;
