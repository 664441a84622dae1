/**
 * Datacenter-scale simulation: a Clos fabric of shared switch ports, one thread on virtual time.
 *
 * <ul>
 *   <li>{@link io.jccl.metaroce.sim.dc.ClosConfig} and {@link io.jccl.metaroce.sim.dc.ClosTopology}: k-ary fat trees of
 *       two tiers (leaf-spine) and three (ToR, aggregation, core), oversubscribed at the ToR, in one plane or several
 *       parallel planes; up/down routing with ECMP over the 5-tuple (the UDP source port included).</li>
 *   <li>{@link io.jccl.metaroce.sim.dc.ClosFabric}: every directed link an output port with a FIFO, tail drop, ECN
 *       marking above a threshold, random loss and failures; only each port's head departure and its wire's head
 *       arrival sit in the event heap; packets are pooled.</li>
 *   <li>{@link io.jccl.metaroce.sim.dc.HostAgent}: what runs on a host; {@link io.jccl.metaroce.sim.dc.IdealSprayHost}
 *       is the bound: line rate, every packet on another path, an oracle that resends what a switch dropped.</li>
 *   <li>{@link io.jccl.metaroce.sim.dc.Flows} and {@link io.jccl.metaroce.sim.dc.Workloads}: flows and their
 *       completion times; permutation and incast.</li>
 * </ul>
 * Time is in picoseconds (a 4 KiB packet takes 81.92 ns at 400 Gbit/s); every random choice comes from the seed.
 */
package io.jccl.metaroce.sim.dc;
