package io.jccl.bootstrap;

/** Something the rendezvous server queues for one connection's writer. */
sealed interface Outbound {
    /** One frame with the given body parts. */
    record Single(byte type, byte[]... parts) implements Outbound {
    }

    /** A completed all-gather round: one ENTRY frame per rank, in rank order. */
    record Table(int round, byte[][] entries) implements Outbound {
    }
}
