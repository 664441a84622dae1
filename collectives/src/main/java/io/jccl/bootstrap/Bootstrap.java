package io.jccl.bootstrap;

/**
 * The out-of-band channel ranks use while a communicator is being built: before any transport connection
 * exists, ranks exchange their endpoint descriptors through it.
 */
public interface Bootstrap extends AutoCloseable {
    /** @return this rank */
    int rank();

    /** @return the number of ranks */
    int size();

    /**
     * Every rank contributes bytes; every rank gets all contributions in rank order. Collective: all ranks
     * call it the same number of times. Waits at most the timeout the bootstrap was created with.
     *
     * @param mine this rank's contribution (at most 16 MiB)
     * @return all contributions, index = rank
     * @throws io.jccl.JcclException TIMEOUT when a rank does not arrive in time, REMOTE_ERROR when the
     *                               rendezvous fails or refuses, SYSTEM_ERROR on I/O failure
     */
    byte[][] allGather(byte[] mine);

    /**
     * A 32-byte secret every rank of this bootstrap gets alike and no one outside it can compute: the root of the
     * secrets the communicator built on it derives later (e.g. for {@link io.jccl.Communicator#shrink}).
     *
     * @return a fresh copy
     */
    byte[] communicatorSecret();

    /** Leaves the rendezvous; further calls fail. */
    @Override
    void close();
}
