package io.jccl.net.shm;

import io.aeron.Aeron;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.RecvConnection;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.agrona.DirectBuffer;
import org.slf4j.Logger;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;

/**
 * Accepts the connections of all peers: a subscription on the listener's hello stream, which every connecting
 * side publishes one hello frame to. A valid hello (magic, version, flags, token) names the connection's data
 * stream; the listener subscribes to it, and the connection surfaces from {@link #accept()} once the sender's log is
 * linked to that subscription. An invalid hello is dropped with a warning; a valid one whose sender never appears
 * within the connect timeout, or whose process dies, is dropped too.
 *
 * <p>{@link #accept()} is synchronized: it is called during setup only, and {@link #close()} may come from
 * another thread. Closing stops accepting; accepted connections have subscriptions of their own and stay open.
 */
final class ShmListener implements Listener, FragmentHandler {
    private static final Logger LOG = JcclLog.logger(Subsystem.SHM, ShmListener.class);
    /** Most accepted hellos waiting for their sender's log at once; more are dropped (a flood, not peers). */
    static final int MAX_PENDING = 1024;

    private final ShmTransport transport;
    private final Aeron aeron;
    private final Subscription hellos;
    private final int streamId;
    private final byte[] token;
    private final byte[] handle;
    private final String description;
    private final List<PendingAccept> pending = new ArrayList<>();
    private volatile boolean closed;

    /** A valid hello whose data subscription is being added or waits for the sender's log. */
    private record PendingAccept(long registrationId, int streamId, int rank, long pid, long deadlineNs) {
    }

    ShmListener(ShmTransport transport, Subscription hellos, int streamId, ShmHandle handle) {
        this.transport = transport;
        this.aeron = transport.driver().aeron();
        this.hellos = hellos;
        this.streamId = streamId;
        this.token = handle.token();
        this.handle = handle.encode();
        this.description = "shm listener of rank " + transport.rank() + " (stream " + streamId + ")";
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
            throw new NetException(NetException.Reason.IO_ERROR, description + " failed: its subscription was closed"
                    + " (the shm media driver " + transport.driver().directory() + " went away?)");
        }
        hellos.poll(this, 16);
        long now = System.nanoTime();
        for (Iterator<PendingAccept> it = pending.iterator(); it.hasNext(); ) {
            PendingAccept p = it.next();
            Subscription data;
            try {
                data = aeron.getSubscription(p.registrationId());
            } catch (RuntimeException e) {
                it.remove();
                LOG.warn("{} dropped the connection from rank {}: subscribing to stream {} failed: {}", description,
                        p.rank(), p.streamId(), e.toString());
                continue;
            }
            if (data != null && data.imageCount() > 0) {
                it.remove();
                return transport.openRecv(data, data.imageAtIndex(0), p.rank(), p.pid());
            }
            boolean dead = ProcessHandle.of(p.pid()).map(h -> !h.isAlive()).orElse(true);
            if (now - p.deadlineNs() > 0 || dead) {
                it.remove();
                LOG.warn("{} dropped the connection from rank {} (pid {}): {}", description, p.rank(), p.pid(),
                        dead ? "its process is gone" : "its log did not appear within the connect timeout");
                if (data != null) {
                    data.close();
                } else {
                    aeron.asyncRemoveSubscription(p.registrationId());
                }
            }
        }
        return null;
    }

    /** Reads one hello frame; runs inside {@link #accept()}. */
    @Override
    public void onFragment(DirectBuffer buffer, int offset, int length, Header header) {
        String problem = checkHello(buffer, offset, length);
        if (problem != null) {
            LOG.warn("{} dropped a hello (Aeron session {}): {}", description, header.sessionId(), problem);
            return;
        }
        int rank = buffer.getInt(offset + 8, ByteOrder.LITTLE_ENDIAN);
        int dataStream = buffer.getInt(offset + 12, ByteOrder.LITTLE_ENDIAN);
        long pid = buffer.getLong(offset + 16, ByteOrder.LITTLE_ENDIAN);
        if (pending.size() >= MAX_PENDING) {
            LOG.warn("{} dropped the hello of rank {}: {} connections are waiting already", description, rank,
                    MAX_PENDING);
            return;
        }
        long registration = aeron.asyncAddSubscription(ShmTransport.SUBSCRIPTION_CHANNEL, dataStream);
        pending.add(new PendingAccept(registration, dataStream, rank, pid,
                System.nanoTime() + transport.connectTimeoutNs()));
    }

    /** @return null when the hello is valid, otherwise why not */
    private String checkHello(DirectBuffer buffer, int offset, int length) {
        if (length != Wire.HELLO_BYTES) {
            return "it has " + length + " bytes instead of " + Wire.HELLO_BYTES;
        }
        int magic = buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
        if (magic != Wire.HELLO_MAGIC) {
            return "bad magic 0x" + Integer.toHexString(magic);
        }
        int version = Short.toUnsignedInt(buffer.getShort(offset + 4, ByteOrder.LITTLE_ENDIAN));
        if (version != Wire.VERSION) {
            return "unsupported version " + version + " (this side speaks " + Wire.VERSION + ")";
        }
        if (buffer.getShort(offset + 6, ByteOrder.LITTLE_ENDIAN) != 0) {
            return "nonzero flags";
        }
        if (buffer.getInt(offset + 8, ByteOrder.LITTLE_ENDIAN) < 0) {
            return "negative rank";
        }
        if (buffer.getLong(offset + 16, ByteOrder.LITTLE_ENDIAN) <= 0) {
            return "invalid pid";
        }
        byte[] presented = new byte[Wire.TOKEN_BYTES];
        buffer.getBytes(offset + 24, presented);
        return MessageDigest.isEqual(presented, token) ? null : "wrong token";
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
                StreamIds.release(streamId);
                for (PendingAccept p : pending) {
                    try {
                        Subscription data = aeron.getSubscription(p.registrationId());
                        if (data != null) {
                            data.close();
                        } else {
                            aeron.asyncRemoveSubscription(p.registrationId());
                        }
                    } catch (RuntimeException ignored) {
                        // the subscription failed or the client is gone: nothing left to remove
                    }
                }
                pending.clear();
                transport.forget(this);
            }
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
