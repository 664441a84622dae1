package io.jccl.cli.bench.loss;

/**
 * One transport at one loss rate in a {@code jccl bench loss} sweep.
 *
 * @param transport    the transport's name
 * @param loss         the random loss rate of the link, each direction
 * @param link         the link's name ({@link LinkKind#label()}), {@code none} when skipped
 * @param bytes        bytes the transfer was to carry
 * @param outcome      how it went
 * @param goodputRatio goodput over the same transport's at loss 0 (NaN when either was not measured)
 * @param runs         runs behind the row (the outcome is their median, or the first that failed); 0 when skipped
 */
public record LossRow(String transport, double loss, String link, long bytes, LossTransfer.Outcome outcome,
                      double goodputRatio, int runs) {
}
