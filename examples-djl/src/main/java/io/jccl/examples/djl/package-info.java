/**
 * Data-parallel training with DJL (the PyTorch engine) over JCCL: {@link io.jccl.examples.djl.JcclGradientSync},
 * a DJL training listener that averages every gradient across the ranks and broadcasts the initial parameters,
 * and {@link io.jccl.examples.djl.DjlDataParallelMlp}, an MLP trained with it under {@code jccl run}
 * (docs/examples-djl.md).
 */
package io.jccl.examples.djl;
