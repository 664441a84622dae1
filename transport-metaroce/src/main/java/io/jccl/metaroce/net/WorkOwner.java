package io.jccl.metaroce.net;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.WorkKind;

/** Whatever posted a piece of MetaRoCE work and wants its completion; called on the driving thread. */
interface WorkOwner {
    /**
     * @param kind   what was posted
     * @param status how it ended
     * @param bytes  bytes written, sent or received
     */
    void onWork(WorkKind kind, CompletionStatus status, long bytes);
}
