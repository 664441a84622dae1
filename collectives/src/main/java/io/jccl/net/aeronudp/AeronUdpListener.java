package io.jccl.net.aeronudp;

import io.aeron.Aeron;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.RecvConnection;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.Deque;
import org.agrona.DirectBuffer;
import org.slf4j.Logger;

/**
 * Accepts the connections of all peers on one UDP endpoint (the rank's bind address, an ephemeral port): a
 * subscription on the hello stream, which every connecting side publishes one hello frame to. A valid hello
 * (magic, version, flags, token) names the connection's data stream and Aeron session; the listener adds a
 * subscription to exactly that stream and session on the same endpoint (found by its channel tag), and the
 * connection surfaces from {@link #accept()} once the sender's image is linked to it. Invalid hellos are dropped
 * with a warning; a valid one whose sender never appears within the connect timeout is dropped too.
 *
 * <p>{@link #accept()} is synchronized: it is called during setup only, and {@link #close()} may come from another
 * thread. Closing stops accepting; accepted connections have subscriptions of their own and stay open.
 */
final class AeronUdpListener implements Listener, FragmentHandler {
    private static final Logger LOG = JcclLog.logger(Subsystem.NET, AeronUdpListener.class);
    /** Most accepted hellos waiting for their sender's image at once; more are dropped (a flood, not peers). */
    static final int MAX_PENDING = 1024;

    private final AeronUdpTransport transport;
    private final Aeron aeron;
    private final Subscription hellos;
    private final long channelTag;
    private final byte[] token;
    private final byte[] handle;
    private final String description;
    private final Deque<Waiting> waiting = new ArrayDeque<>();
    private volatile boolean closed;

    /** A valid hello whose data subscription is being added, or waits for the sender's image. */
    private record Waiting(long registrationId, int rank, long deadlineNs) {
    }

    AeronUdpListener(AeronUdpTransport transport, Subscription hellos, long channelTag, AeronUdpHandle handle) {
        this.transport = transport;
        this.aeron = transport.driver().aeron();
        this.hellos = hellos;
        this.channelTag = channelTag;
        this.token = handle.token();
        this.handle = handle.encode();
        this.description = "aeron-udp listener of rank " + transport.rank() + " (" + handle.endpoint() + ")";
    }

    @Override
    public byte[] handle() {
        return handle.clone();
    }

    @Override
    public synchronized RecvConnection accept() {
        if (closed) {
            throw new NetException(NetException.Reason.CLOSED, description + " is closed");
        }
        if (hellos.isClosed()) {
            throw new NetException(NetException.Reason.IO_ERROR, description + " failed: its subscription was closed");
        }
        hellos.poll(this, 16);
        long now = System.nanoTime();
        for (int i = waiting.size(); i > 0; i--) {
            Waiting w = waiting.poll();
            Subscription data = null;
            try {
                data = aeron.getSubscription(w.registrationId());
            } catch (RuntimeException e) {
                LOG.warn("{} dropped the connection from rank {}: subscribing failed: {}", description, w.rank(),
                        e.toString());
                continue;
            }
            if (data != null && data.imageCount() > 0) {
                return transport.openRecv(data, data.imageAtIndex(0), w.rank());
            }
            if (now - w.deadlineNs() > 0) {
                LOG.warn("{} dropped the connection from rank {}: its data did not arrive within the connect timeout",
                        description, w.rank());
                remove(w, data);
            } else {
                waiting.add(w);
            }
        }
        return null;
    }

    /** Reads one hello frame; runs inside {@link #accept()}. */
    @Override
    public void onFragment(DirectBuffer buffer, int offset, int length, Header header) {
        String problem = invalidHello(buffer, offset, length);
        if (problem != null) {
            LOG.warn("{} dropped a hello (Aeron session {}): {}", description, header.sessionId(), problem);
            return;
        }
        int rank = buffer.getInt(offset + 8, ByteOrder.LITTLE_ENDIAN);
        int dataStream = buffer.getInt(offset + 12, ByteOrder.LITTLE_ENDIAN);
        int session = buffer.getInt(offset + 16, ByteOrder.LITTLE_ENDIAN);
        if (waiting.size() >= MAX_PENDING) {
            LOG.warn("{} dropped the hello of rank {}: {} connections are waiting already", description, rank,
                    MAX_PENDING);
            return;
        }
        long registration = aeron.asyncAddSubscription("aeron:udp?tags=" + channelTag + "|session-id=" + session,
                dataStream);
        waiting.add(new Waiting(registration, rank, System.nanoTime() + transport.connectTimeoutNs()));
    }

    /** @return null when the hello is valid, otherwise why not */
    private String invalidHello(DirectBuffer buffer, int offset, int length) {
        if (length != UdpWire.HELLO_BYTES) {
            return "it has " + length + " bytes instead of " + UdpWire.HELLO_BYTES;
        }
        if (buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN) != UdpWire.HELLO_MAGIC) {
            return "bad magic 0x" + Integer.toHexString(buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN));
        }
        int version = Short.toUnsignedInt(buffer.getShort(offset + 4, ByteOrder.LITTLE_ENDIAN));
        if (version != UdpWire.VERSION) {
            return "unsupported version " + version + " (this side speaks " + UdpWire.VERSION + ")";
        }
        if (buffer.getShort(offset + 6, ByteOrder.LITTLE_ENDIAN) != 0
                || buffer.getInt(offset + 20, ByteOrder.LITTLE_ENDIAN) != 0) {
            return "nonzero flags or reserved bits";
        }
        if (buffer.getInt(offset + 8, ByteOrder.LITTLE_ENDIAN) < 0) {
            return "negative rank";
        }
        byte[] presented = new byte[UdpWire.TOKEN_BYTES];
        buffer.getBytes(offset + 24, presented);
        return MessageDigest.isEqual(presented, token) ? null : "wrong token";
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
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
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
                        // failed: nothing to close
                    }
                    remove(w, data);
                }
                waiting.clear();
                transport.forget(this);
            }
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
