package io.jccl.metaroce.protocol;

/** The kinds of posted work. */
public enum WorkKind {
    /** A one-sided write into a remote region. */
    WRITE,
    /** A message matched to the peer's posted receive on a stream. */
    SEND,
    /** A posted receive buffer. */
    RECV,
    /**
     * At the receiver: a peer's WRITE with immediate is in place, every byte of it. The completion's work id is the
     * immediate (0 to 2^32-1), its bytes the WRITE's length; nothing was posted for it.
     */
    IMMEDIATE
}
