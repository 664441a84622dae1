/**
 * What every example needs besides its algorithm: options ({@link io.jccl.examples.support.ExampleArgs}), a float64
 * sum across ranks ({@link io.jccl.examples.support.SumAllReduce}) and {@code --metrics-port}
 * ({@link io.jccl.examples.support.ExampleMetrics}).
 */
package io.jccl.examples.support;
