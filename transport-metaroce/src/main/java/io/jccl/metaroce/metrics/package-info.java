/**
 * {@link io.jccl.metaroce.metrics.MetaRoceMetrics}: the MetaRoCE transport's per-path gauges and protocol counters
 * for {@link io.jccl.metrics.JcclMetrics}, found through {@link java.util.ServiceLoader} (docs/metrics.md).
 */
package io.jccl.metaroce.metrics;
