package io.jccl.net.local;

import io.jccl.net.Listener;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;

/** Accepts channels that connecting ranks of this JVM hand over directly. */
final class LocalListener implements Listener {
    private final long id;
    private final byte[] handle;
    final ProgressSignal signal;
    private final ConcurrentLinkedQueue<LocalChannel> incoming = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    private final LocalTransport transport;

    LocalListener(LocalTransport transport, long id, long jvmToken, ProgressSignal signal) {
        this.transport = transport;
        this.id = id;
        this.signal = signal;
        this.handle = ByteBuffer.allocate(LocalTransport.HANDLE_BYTES).putInt(LocalTransport.HANDLE_MAGIC)
                .putLong(jvmToken).putLong(id).array();
    }

    long id() {
        return id;
    }

    boolean offer(LocalChannel channel) {
        if (closed) {
            return false;
        }
        incoming.add(channel);
        signal.signal();
        return true;
    }

    @Override
    public byte[] handle() {
        return handle.clone();
    }

    @Override
    public RecvConnection accept() {
        LocalChannel ch = incoming.poll();
        return ch == null ? null : transport.track(new LocalEndpoint(ch, false));
    }

    @Override
    public void close() {
        closed = true;
        LocalTransport.unregister(this);
    }
}
