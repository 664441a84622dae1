package io.jccl.metaroce.net;

import io.jccl.net.NetException;
import io.jccl.net.PendingConnect;
import io.jccl.net.SendConnection;

import java.net.InetSocketAddress;

/** A connection attempt; the driving thread completes or fails it, the caller polls. */
final class MetaRocePendingConnect implements PendingConnect {
    private final MetaRoceNetTransport transport;
    final MetaRoceHandle handle;
    final long deadlineNs;
    private volatile SendConnection connection;
    private volatile NetException failure;
    private volatile boolean cancelled;
    /** Set when the caller took the connection: it then opens (says HELLO) and cancel() is harmless. */
    private final java.util.concurrent.atomic.AtomicBoolean taken = new java.util.concurrent.atomic.AtomicBoolean();

    // Driving thread.
    MetaRoceSendConnection channel;

    MetaRocePendingConnect(MetaRoceNetTransport transport, MetaRoceHandle handle, long deadlineNs) {
        this.transport = transport;
        this.handle = handle;
        this.deadlineNs = deadlineNs;
    }

    InetSocketAddress target() {
        return handle.paths().getFirst();
    }

    boolean isCancelled() {
        return cancelled;
    }

    void complete(SendConnection established) {
        connection = established;
    }

    void fail(NetException e) {
        failure = e;
    }

    /**
     * Returns the connection once the MetaRoCE connection is established; only then does the channel say HELLO to
     * the listener (handed to the driving thread), so an attempt cancelled before the caller took its connection is
     * never accepted on the other side.
     */
    @Override
    public SendConnection poll() {
        MetaRoceSendConnection c = (MetaRoceSendConnection) connection;
        if (c == null && failure == null) {
            transport.driveFromCaller();
            c = (MetaRoceSendConnection) connection;
        }
        NetException e = failure;
        if (e != null) {
            throw new NetException(e.reason(), e.getMessage(), e);
        }
        if (c != null && taken.compareAndSet(false, true)) {
            MetaRoceSendConnection opening = c;
            transport.submit((Runnable) () -> opening.open(handle.listenerId()));
        }
        return c;
    }

    @Override
    public void cancel() {
        if (!taken.get()) {
            cancelled = true;
        }
    }
}
