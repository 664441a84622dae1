package io.jccl.metaroce.protocol;

/** How posted work ended. */
public enum CompletionStatus {
    /** Done: written, sent and acknowledged, or received in full. */
    OK,
    /** The message did not fit the posted receive buffer. */
    TRUNCATED,
    /** The connection closed (or failed: every path dead beyond the configured limit) first. */
    CONNECTION_CLOSED
}
