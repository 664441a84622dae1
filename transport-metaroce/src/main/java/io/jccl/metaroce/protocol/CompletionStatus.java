package io.jccl.metaroce.protocol;

/** How posted work ended. */
public enum CompletionStatus {
    /** Done: written, sent and acknowledged, or received in full. */
    OK,
    /** The message did not fit the posted receive buffer. */
    TRUNCATED,
    /** The connection closed (or failed: every path dead beyond the configured limit) first. */
    CONNECTION_CLOSED,
    /**
     * A receive that nothing will fill: the peer closed gracefully, and everything it sent was delivered (posted
     * receives, and receives posted after the peer's CLOSE, end this way; the connection may stay open a little
     * longer for this side's own messages to be acknowledged).
     */
    PEER_DONE,
    /** Withdrawn by the poster before it completed ({@code Endpoint.cancel}); what was placed stays placed. */
    CANCELLED
}
