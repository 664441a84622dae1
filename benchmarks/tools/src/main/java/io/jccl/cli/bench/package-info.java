/**
 * {@code jccl bench}: benchmarks. {@code jccl bench transport} runs MetaRoCE and the RoCEv2 go-back-N baseline
 * through the deterministic fabric simulator ({@link io.jccl.metaroce.sim}) over a sweep of loss rates;
 * {@code jccl bench collective} an all-reduce across JVMs; {@code jccl bench tcp} the {@code tcp} transport's
 * point-to-point bandwidth on loopback per socket count, against a raw socket ceiling.
 */
package io.jccl.cli.bench;
