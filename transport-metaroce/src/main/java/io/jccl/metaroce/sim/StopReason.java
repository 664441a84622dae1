package io.jccl.metaroce.sim;

/** Why {@link Simulator#run} returned. */
public enum StopReason {
    /** The stop condition held. */
    DONE,
    /** No event is left and no stop condition was given. */
    IDLE,
    /** No event is left but the stop condition does not hold: nothing will ever change (a deadlock or a hang). */
    STUCK,
    /** The event budget was spent. */
    EVENT_BUDGET,
    /** The next event lies beyond the virtual-time limit. */
    TIME_LIMIT,
    /** Too many events in a row at one virtual instant: something keeps rescheduling itself without time passing. */
    LIVELOCK
}
