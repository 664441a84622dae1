/**
 * MetaRoCE for JCCL: {@link io.jccl.metaroce.protocol} is the sans-IO protocol core (no sockets, threads or
 * clock), {@link io.jccl.metaroce.sim} the deterministic lossy-fabric simulator that drives it.
 */
package io.jccl.metaroce;
