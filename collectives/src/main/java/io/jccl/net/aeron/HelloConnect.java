package io.jccl.net.aeron;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.jccl.net.AbstractPendingConnect;
import io.jccl.net.NetException;
import io.jccl.net.SendConnection;

/**
 * A non-blocking connection attempt of an Aeron transport. The transport has asked its driver for two
 * publications: a small one on the listener's hello stream and the connection's data publication. Each
 * {@link #poll()} then moves one step: once both exist and the hello publication reaches the listener, the
 * {@link HelloFrame} (naming the data stream) is written — only from {@code poll()}, so an attempt cancelled before
 * its first poll never reaches the listener; once the listener subscribed to the data stream, the hello publication
 * is closed and the connection returned. Fails with {@link NetException.Reason#IO_ERROR} when the connect timeout
 * passes or the transport finds the listener {@linkplain #listenerProblem gone}; with
 * {@link NetException.Reason#CLOSED} once cancelled.
 */
public abstract class HelloConnect extends AbstractPendingConnect {
    private final Aeron aeron;
    private final int rank;
    private final int magic;
    private final byte[] token;
    private final long helloRegistration;
    private final long dataRegistration;
    private final int dataStreamId;
    private final long startNs;
    private final long timeoutNs;
    private ExclusivePublication hello;
    private Publication data;
    private boolean helloSent;

    /**
     * @param aeron             the transport's client
     * @param what              for messages, e.g. "aeron-ipc connection of rank 2 to rank 0 (pid 17, stream 9)"
     * @param rank              the connecting rank, for the hello
     * @param magic             the transport's hello magic
     * @param token             the listener's token, from its handle
     * @param helloRegistration the hello publication being added
     * @param dataRegistration  the data publication being added
     * @param dataStreamId      the data publication's stream
     * @param timeoutNs         the connect timeout
     */
    protected HelloConnect(Aeron aeron, String what, int rank, int magic, byte[] token, long helloRegistration,
                           long dataRegistration, int dataStreamId, long timeoutNs) {
        super(what);
        this.aeron = aeron;
        this.rank = rank;
        this.magic = magic;
        this.token = token.clone();
        this.helloRegistration = helloRegistration;
        this.dataRegistration = dataRegistration;
        this.dataStreamId = dataStreamId;
        this.startNs = System.nanoTime();
        this.timeoutNs = timeoutNs;
    }

    /** @return the hello's transport detail for this data publication */
    protected abstract long helloDetail(Publication data);

    /** @return the sending end over the connected data publication */
    protected abstract SendConnection open(Publication data);

    /** @return why the listener can no longer take the connection (checked while waiting), or null */
    protected abstract String listenerProblem(long nowNs);

    /** @return why the hello publication is not connected, for the timeout message */
    protected abstract String noListenerReason();

    /**
     * Called once when the attempt ends: {@code connected} true when {@link #open} took the data publication,
     * false when the attempt failed or was cancelled (the publications are closed already).
     */
    protected abstract void ended(boolean connected);

    /** @return the data publication's stream */
    protected final int dataStreamId() {
        return dataStreamId;
    }

    @Override
    protected final SendConnection attempt() {
        try {
            if (hello == null) {
                hello = aeron.getExclusivePublication(helloRegistration);
            }
            if (data == null) {
                data = aeron.getPublication(dataRegistration);
            }
        } catch (RuntimeException e) {
            throw fail("the media driver refused a publication: " + e, e);
        }
        if (hello != null && data != null && !helloSent && hello.isConnected()) {
            helloSent = sendHello();
        }
        if (helloSent && data.isConnected()) {
            closeQuietly(hello, helloRegistration);
            SendConnection connection = open(data);
            ended(true);
            return connection;
        }
        long now = System.nanoTime();
        if (now - startNs > timeoutNs) {
            throw fail("timed out after " + (now - startNs) / 1_000_000 + " ms (" + (hello == null
                    || !hello.isConnected() ? noListenerReason() : "the listener did not take the connection")
                    + ")", null);
        }
        String problem = listenerProblem(now);
        if (problem != null) {
            throw fail(problem, null);
        }
        return null;
    }

    private boolean sendHello() {
        long result = hello.offer(HelloFrame.encode(magic, rank, dataStreamId, helloDetail(data), token), 0,
                HelloFrame.BYTES);
        if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED) {
            throw fail("the hello publication failed (Aeron result " + result + ")", null);
        }
        return result > 0;
    }

    private NetException fail(String why, Throwable cause) {
        return new NetException(NetException.Reason.IO_ERROR, description + " failed: " + why, cause);
    }

    @Override
    protected final void release() {   // once, and never after open took the data publication
        closeQuietly(hello, helloRegistration);
        closeQuietly(data, dataRegistration);
        ended(false);
    }

    private void closeQuietly(Publication publication, long registration) {
        try {
            if (publication != null) {
                publication.close();
            } else {
                aeron.asyncRemovePublication(registration);
            }
        } catch (RuntimeException ignored) {
            // the client is gone: nothing left to remove
        }
    }
}
