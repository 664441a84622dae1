package io.jccl.metaroce.sim;

/**
 * How a {@link Simulator#run} ended.
 *
 * @param reason why it stopped
 * @param nowNs  virtual time when it stopped
 * @param events events processed by this run
 */
public record RunResult(StopReason reason, long nowNs, long events) {
    /** @return true when it stopped because the condition held (or, with none, because nothing was left) */
    public boolean completed() {
        return reason == StopReason.DONE || reason == StopReason.IDLE;
    }
}
