/**
 * Data-parallel SGD with JCCL ({@link io.jccl.examples.sgd.DataParallelSgd}): ranks started by {@code jccl run}
 * each own a shard of a synthetic dataset and all-reduce every mini-batch's gradient.
 */
package io.jccl.examples.sgd;
