package io.jccl.net;

/** Accepts the connections peers make to this rank. */
public interface Listener extends AutoCloseable {
    /** @return the bytes a peer passes to {@link NetTransport#connect}; shared through the rendezvous */
    byte[] handle();

    /**
     * Never blocks.
     *
     * @return the next connection that completed, or null when none is ready yet
     * @throws NetException when listening failed
     */
    RecvConnection accept();

    /** Stops accepting; connections already accepted stay open. */
    @Override
    void close();
}
