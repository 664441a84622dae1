package io.jccl.metaroce.protocol.path;

/** Health of a sending path. */
public enum PathState {
    /** Carries new packets. */
    ACTIVE,
    /** Its retransmission timer fired: it gets only a small window until it acknowledges again. */
    SUSPECT,
    /** Declared dead: moved to a new route and probed; carries no data until readmitted. */
    FAILED
}
