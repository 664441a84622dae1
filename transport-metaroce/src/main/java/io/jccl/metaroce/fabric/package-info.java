/**
 * Impaired networks on real sockets: {@link io.jccl.metaroce.fabric.ImpairmentRelay}, a UDP relay between two
 * endpoints, and {@link io.jccl.metaroce.fabric.ImpairmentProxy}, one relay for any number of endpoints that register
 * with it ({@link io.jccl.metaroce.fabric.RelayClient}). Both lose, corrupt, duplicate, delay, reorder, black-hole,
 * flap and rate-limit (with ECN marking, {@link io.jccl.metaroce.fabric.RateLimit}) what crosses them, and count it
 * ({@link io.jccl.metaroce.fabric.RelayCounters}).
 */
package io.jccl.metaroce.fabric;
