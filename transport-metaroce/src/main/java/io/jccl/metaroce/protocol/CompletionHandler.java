package io.jccl.metaroce.protocol;

/** Receives completions; called from the thread that drives the core. */
@FunctionalInterface
public interface CompletionHandler {
    /**
     * @param connectionId the local connection id
     * @param workId       the id {@code post*} returned
     * @param kind         what was posted
     * @param status       how it ended
     * @param bytes        bytes written, sent or received
     */
    void onCompletion(int connectionId, long workId, WorkKind kind, CompletionStatus status, long bytes);
}
