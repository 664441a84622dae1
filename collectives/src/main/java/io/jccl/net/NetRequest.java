package io.jccl.net;

/**
 * A posted send or receive.
 *
 * <p>A transport may move a request's data only while the request is tested (as NCCL's {@code test} drives a
 * net plugin's progress): a caller keeps testing every pending request, sends included, until it completes. A
 * caller that waits for a receive without testing its own pending send can deadlock with a peer doing the same.
 */
public interface NetRequest {
    /** Returned by {@link #test()} while the request is still pending. */
    long NOT_DONE = -1;

    /**
     * Makes progress and reports completion. Once this returns a size or throws, the request object belongs
     * to the transport again (it may be reused) and must not be touched.
     *
     * @return {@link #NOT_DONE} while pending; when complete, the bytes sent, or the bytes received
     * @throws NetException when the request failed
     */
    long test();
}
