package io.jccl.bootstrap;

/** The rendezvous refused this client, or the server refuses a client; carries the reason sent on the wire. */
final class RefusedException extends Exception {
    private static final long serialVersionUID = 1L;

    RefusedException(String reason) {
        super(reason);
    }
}
