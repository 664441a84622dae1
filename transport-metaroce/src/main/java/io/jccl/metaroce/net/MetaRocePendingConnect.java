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

    @Override
    public SendConnection poll() {
        SendConnection c = connection;
        if (c == null && failure == null) {
            transport.driveFromCaller();
            c = connection;
        }
        NetException e = failure;
        if (e != null) {
            throw new NetException(e.reason(), e.getMessage(), e);
        }
        return c;
    }

    @Override
    public void cancel() {
        if (connection == null) {
            cancelled = true;
        }
    }
}
