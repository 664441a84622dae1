package io.jccl.core;

import io.jccl.Communicator;

import java.lang.management.ManagementFactory;

/** Reaches package-private test hooks of the core from tests in other packages, and from the allocation probes. */
public final class TestHooks {
    private TestHooks() {
    }

    /** {@code comm} stops sending heartbeats and reports, as a hung process would; it still receives. */
    public static void silence(Communicator comm) {
        ((CommImpl) comm).silenceForTests();
    }

    /** @return whether queuing an operation on {@code comm} wakes its thread now ({@code CommExecutor.wakeOnOffer}) */
    public static boolean wakesOnOffer(Communicator comm) {
        return ((CommImpl) comm).executor().wakesOnOffer();
    }

    /**
     * @return what {@code comm}'s progress allocated so far: on its executor thread, and in the steps that waiting
     *         callers drove (caller-driven progress; the callers' own API calls, futures and requests, not counted)
     */
    public static long progressAllocatedBytes(Communicator comm) {
        CommImpl c = (CommImpl) comm;
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        return threads.getThreadAllocatedBytes(c.executorThreadForTests().threadId())
                + c.executor().callerStepAllocatedBytes();
    }
}
