package io.jccl.net.local;

import io.jccl.net.AbstractListener;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;

/** Accepts channels that connecting ranks of this JVM hand over directly. */
final class LocalListener extends AbstractListener {
    private final long id;
    final ProgressSignal signal;
    private final ConcurrentLinkedQueue<LocalChannel> incoming = new ConcurrentLinkedQueue<>();

    private final LocalTransport transport;

    LocalListener(LocalTransport transport, long id, long jvmToken, ProgressSignal signal) {
        super(ByteBuffer.allocate(LocalTransport.HANDLE_BYTES).putInt(LocalTransport.HANDLE_MAGIC).putLong(jvmToken)
                .putLong(id).array(), "local listener " + id);
        this.transport = transport;
        this.id = id;
        this.signal = signal;
    }

    long id() {
        return id;
    }

    boolean offer(LocalChannel channel) {
        if (isClosed()) {
            return false;
        }
        incoming.add(channel);
        signal.signal();
        return true;
    }

    @Override
    public RecvConnection accept() {
        LocalChannel ch = incoming.poll();
        return ch == null ? null : transport.track(new LocalEndpoint(ch, false));
    }

    @Override
    public void close() {
        markClosed();
        LocalTransport.unregister(this);
    }
}
