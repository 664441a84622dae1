package io.jccl;

/**
 * Why an operation failed. The codes mirror NCCL's {@code ncclResult_t}, plus {@link #ABORTED}, which NCCL
 * leaves to the caller to infer.
 */
public enum ErrorCode {
    /** An argument was wrong: null or too-small buffer, negative count, root out of range, and so on. */
    INVALID_ARGUMENT,
    /**
     * The call was legal on its own but not in context: a closed communicator, a group misuse, or ranks whose
     * calls do not match each other (different collective, count, type, operation or root).
     */
    INVALID_USAGE,
    /** Another rank failed, closed its end, or reported an error. */
    REMOTE_ERROR,
    /** The operation did not complete within its configured timeout. */
    TIMEOUT,
    /** The operating system refused something: a socket, a file, memory. */
    SYSTEM_ERROR,
    /** A bug in JCCL: an invariant did not hold. Please report it. */
    INTERNAL_ERROR,
    /** The communicator was aborted while the operation was pending. */
    ABORTED
}
