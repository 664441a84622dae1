package io.jccl.cli.bench.loss;

/**
 * The simulated go-back-N baseline (RoCEv2's loss recovery, {@code jccl bench transport --protocol gbn}) at one loss
 * rate: the model drawn beside the measured transports.
 *
 * @param loss               random loss per route, each direction
 * @param goodputBytesPerSec payload bytes per simulated second
 * @param goodputRatio       over the model's goodput at loss 0
 */
public record ModelPoint(double loss, double goodputBytesPerSec, double goodputRatio) {
}
