/**
 * Metrics: {@link io.jccl.metrics.OperationListener}, the allocation-free hook the executors report finished
 * operations through, and {@link io.jccl.metrics.JcclMetrics}, the Micrometer binder built on it (docs/metrics.md).
 */
package io.jccl.metrics;
