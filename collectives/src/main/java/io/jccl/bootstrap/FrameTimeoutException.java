package io.jccl.bootstrap;

import java.io.IOException;

/** A read did not complete before its deadline. */
final class FrameTimeoutException extends IOException {
    private static final long serialVersionUID = 1L;

    private final boolean atFrameBoundary;

    FrameTimeoutException(boolean atFrameBoundary) {
        super("timed out");
        this.atFrameBoundary = atFrameBoundary;
    }

    /** @return true when no byte of the next frame had arrived, so the stream is still usable */
    boolean atFrameBoundary() {
        return atFrameBoundary;
    }
}
