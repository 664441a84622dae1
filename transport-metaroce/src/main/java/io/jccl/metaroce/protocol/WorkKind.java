package io.jccl.metaroce.protocol;

/** The kinds of posted work. */
public enum WorkKind {
    /** A one-sided write into a remote region. */
    WRITE,
    /** A message matched to the peer's posted receive on a stream. */
    SEND,
    /** A posted receive buffer. */
    RECV
}
