package io.jccl.net.local;

import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.NetProperties;
import io.jccl.net.NetTransport;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.SendConnection;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** The in-JVM transport instance of one rank. */
public final class LocalTransport implements NetTransport {
    static final int HANDLE_MAGIC = 0x4A434C4C;   // "JCLL"
    static final int HANDLE_BYTES = 20;
    /** Messages in flight per connection. */
    static final int CAPACITY = 128;
    private static final long JVM_TOKEN = new SecureRandom().nextLong();
    private static final AtomicLong NEXT_ID = new AtomicLong();
    private static final ConcurrentHashMap<Long, LocalListener> LISTENERS = new ConcurrentHashMap<>();

    private static final NetProperties PROPERTIES =
            new NetProperties("local", 80_000, 1.0, CAPACITY, Long.MAX_VALUE, true);

    private final List<LocalListener> listeners = new ArrayList<>();
    private final List<LocalEndpoint> endpoints = new ArrayList<>();
    private boolean closed;

    @Override
    public NetProperties properties() {
        return PROPERTIES;
    }

    @Override
    public Listener listen(ProgressSignal signal) {
        LocalListener l = new LocalListener(this, NEXT_ID.incrementAndGet(), JVM_TOKEN, signal);
        LISTENERS.put(l.id(), l);
        synchronized (listeners) {
            listeners.add(l);
        }
        return l;
    }

    @Override
    public PendingConnect connect(byte[] peerHandle, ProgressSignal signal) {
        if (peerHandle == null || peerHandle.length != HANDLE_BYTES) {
            throw new NetException(NetException.Reason.PROTOCOL_ERROR, "a local transport handle has "
                    + HANDLE_BYTES + " bytes, got " + (peerHandle == null ? "null" : peerHandle.length));
        }
        ByteBuffer b = ByteBuffer.wrap(peerHandle);
        if (b.getInt() != HANDLE_MAGIC) {
            throw new NetException(NetException.Reason.PROTOCOL_ERROR, "not a local transport handle (bad magic)");
        }
        if (b.getLong() != JVM_TOKEN) {
            throw new NetException(NetException.Reason.PROTOCOL_ERROR,
                    "the local transport handle belongs to another JVM; ranks in different processes need another transport");
        }
        long id = b.getLong();
        LocalListener listener = LISTENERS.get(id);
        if (listener == null) {
            throw new NetException(NetException.Reason.IO_ERROR, "no local listener " + id + " (closed?)");
        }
        return new PendingConnect() {
            private SendConnection connection;
            private boolean cancelled;

            @Override
            public SendConnection poll() {
                if (cancelled) {
                    throw new NetException(NetException.Reason.CLOSED, "the connection attempt was cancelled");
                }
                if (connection == null) {
                    // The channel reaches the listener only now, so an attempt cancelled before its first poll
                    // leaves no trace there.
                    LocalChannel channel = new LocalChannel(CAPACITY, signal, listener.signal);
                    if (!listener.offer(channel)) {
                        throw new NetException(NetException.Reason.IO_ERROR, "local listener " + id + " is closed");
                    }
                    connection = track(new LocalEndpoint(channel, true));
                }
                return connection;
            }

            @Override
            public void cancel() {
                cancelled = connection == null;
            }
        };
    }

    LocalEndpoint track(LocalEndpoint endpoint) {
        synchronized (endpoints) {
            if (closed) {
                endpoint.close();
                throw new NetException(NetException.Reason.CLOSED, "the transport is closed");
            }
            endpoints.add(endpoint);
        }
        return endpoint;
    }

    static void unregister(LocalListener listener) {
        LISTENERS.remove(listener.id(), listener);
    }

    /** Closes the listeners and every connection made or accepted through this transport. */
    @Override
    public void close() {
        synchronized (listeners) {
            for (LocalListener l : listeners) {
                l.close();
            }
            listeners.clear();
        }
        List<LocalEndpoint> toClose;
        synchronized (endpoints) {
            closed = true;
            toClose = new ArrayList<>(endpoints);
            endpoints.clear();
        }
        for (LocalEndpoint e : toClose) {
            e.close();
        }
    }
}
