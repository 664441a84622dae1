/**
 * {@code jccl bench}: benchmarks. {@code jccl bench transport} runs MetaRoCE and the RoCEv2 go-back-N baseline
 * through the deterministic fabric simulator ({@link io.jccl.metaroce.sim}) over a sweep of loss rates.
 */
package io.jccl.cli.bench;
