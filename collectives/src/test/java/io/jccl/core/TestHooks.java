package io.jccl.core;

import io.jccl.Communicator;

/** Reaches package-private test hooks of the core from tests in other packages. */
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
}
