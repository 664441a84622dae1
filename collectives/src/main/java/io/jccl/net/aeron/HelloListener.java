package io.jccl.net.aeron;

import io.aeron.Aeron;
import io.aeron.Image;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.jccl.net.AbstractListener;
import io.jccl.net.NetException;
import io.jccl.net.RecvConnection;
import java.util.ArrayDeque;
import org.agrona.DirectBuffer;
import org.slf4j.Logger;

/**
 * Accepts the connections of all peers of an Aeron transport: a subscription on the listener's hello stream, which
 * every connecting side publishes one {@link HelloFrame} to. A valid hello (magic, version, flags, token, and the
 * transport's own {@linkplain #detailProblem detail}) names the connection's data stream; the listener subscribes
 * to it ({@link #dataChannel}), and the connection surfaces from {@link #accept()} once the sender's image is linked
 * to that subscription. An invalid hello is dropped with a warning; a valid one whose sender never appears within
 * the connect timeout, or is {@linkplain #goneReason gone}, is dropped too.
 *
 * <p>{@link #accept()} is synchronized: it is called during setup only, and {@link #close()} may come from
 * another thread. Closing stops accepting; accepted connections have subscriptions of their own and stay open.
 */
public abstract class HelloListener extends AbstractListener implements FragmentHandler {
    /** Most accepted hellos waiting for their sender at once; more are dropped (a flood, not peers). */
    public static final int MAX_PENDING = 1024;

    /**
     * A valid hello whose data subscription is being added or waits for the sender.
     *
     * @param registrationId the data subscription's Aeron registration
     * @param rank           the connecting rank
     * @param dataStreamId   its data stream
     * @param detail         the transport's detail from the hello
     * @param deadlineNs     when to give up on it
     */
    protected record Waiting(long registrationId, int rank, int dataStreamId, long detail, long deadlineNs) {
    }

    private final AeronTransport host;
    private final Aeron aeron;
    private final Subscription hellos;
    private final int magic;
    private final byte[] token;
    private final Logger log;
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();

    /**
     * @param host        the transport
     * @param hellos      the hello subscription, owned by the listener from now on
     * @param magic       the transport's hello magic
     * @param token       the token a hello must present
     * @param handle      the encoded handle peers connect with
     * @param description for messages, e.g. "aeron-ipc listener of rank 3 (stream 7)"
     * @param log         the transport's logger
     */
    protected HelloListener(AeronTransport host, Subscription hellos, int magic, byte[] token, byte[] handle,
                            String description, Logger log) {
        super(handle.clone(), description);
        this.host = host;
        this.aeron = host.aeron();
        this.hellos = hellos;
        this.magic = magic;
        this.token = token.clone();
        this.log = log;
    }

    /** @return null when the transport's detail of a hello is valid, otherwise why not */
    protected abstract String detailProblem(long detail);

    /** @return the channel of a hello's data stream, which the listener subscribes to */
    protected abstract String dataChannel(long detail);

    /** @return the receiving end of a connection whose sender's image is linked */
    protected abstract RecvConnection open(Subscription data, Image image, Waiting waiting);

    /** @return why a waiting connection's sender will never come (e.g. its process died), or null */
    protected abstract String goneReason(Waiting waiting);

    /** @return what to add to the message when the hello subscription was closed under the listener */
    protected abstract String lostHellosHint();

    /**
     * Releases what the transport holds for this listener besides its registration; called once by
     * {@link #close()}. Nothing by default.
     */
    protected void released() {
    }

    @Override
    public final synchronized RecvConnection accept() {
        throwIfClosed();
        if (hellos.isClosed()) {
            throw new NetException(NetException.Reason.IO_ERROR, description + " failed: its subscription was closed"
                    + lostHellosHint());
        }
        hellos.poll(this, 16);
        long now = System.nanoTime();
        for (int i = waiting.size(); i > 0; i--) {
            Waiting w = waiting.poll();
            Subscription data;
            try {
                data = aeron.getSubscription(w.registrationId());
            } catch (RuntimeException e) {
                log.warn("{} dropped the connection from rank {}: subscribing to stream {} failed: {}", description,
                        w.rank(), w.dataStreamId(), e.toString());
                continue;
            }
            if (data != null && data.imageCount() > 0) {
                return open(data, data.imageAtIndex(0), w);
            }
            String gone = now - w.deadlineNs() > 0 ? "its data stream did not appear within the connect timeout"
                    : goneReason(w);
            if (gone != null) {
                log.warn("{} dropped the connection from rank {}: {}", description, w.rank(), gone);
                remove(w, data);
            } else {
                waiting.add(w);
            }
        }
        return null;
    }

    /** Reads one hello frame; runs inside {@link #accept()}. */
    @Override
    public final void onFragment(DirectBuffer buffer, int offset, int length, Header header) {
        String problem = HelloFrame.problem(buffer, offset, length, magic, token);
        if (problem == null) {
            problem = detailProblem(HelloFrame.detail(buffer, offset));
        }
        if (problem != null) {
            log.warn("{} dropped a hello (Aeron session {}): {}", description, header.sessionId(), problem);
            return;
        }
        int rank = HelloFrame.rank(buffer, offset);
        if (waiting.size() >= MAX_PENDING) {
            log.warn("{} dropped the hello of rank {}: {} connections are waiting already", description, rank,
                    MAX_PENDING);
            return;
        }
        int dataStream = HelloFrame.dataStreamId(buffer, offset);
        long detail = HelloFrame.detail(buffer, offset);
        waiting.add(new Waiting(aeron.asyncAddSubscription(dataChannel(detail), dataStream), rank, dataStream,
                detail, System.nanoTime() + host.connectTimeoutNs()));
    }

    private void remove(Waiting w, Subscription data) {
        try {
            if (data != null) {
                data.close();
            } else {
                aeron.asyncRemoveSubscription(w.registrationId());
            }
        } catch (RuntimeException ignored) {
            // the subscription failed or the client is gone: nothing left to remove
        }
    }

    @Override
    public final void close() {
        if (!markClosed()) {
            return;
        }
        synchronized (this) {
            try {
                hellos.close();
            } catch (RuntimeException ignored) {
                // the client is gone already
            } finally {
                for (Waiting w : waiting) {
                    Subscription data = null;
                    try {
                        data = aeron.getSubscription(w.registrationId());
                    } catch (RuntimeException ignored) {
                        // the subscription failed: nothing to close
                    }
                    remove(w, data);
                }
                waiting.clear();
                released();
                host.resources().forget(this);
            }
        }
    }
}
