package io.jccl.metaroce.net;

import io.jccl.net.AbstractListener;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;

import java.util.concurrent.ConcurrentLinkedQueue;

/** A {@code metaroce} listener: hands out the receiving ends whose HELLO reached the transport's accepting side. */
final class MetaRoceListener extends AbstractListener {
    private final MetaRoceNetTransport transport;
    private final int id;
    private final ProgressSignal signal;
    private final ConcurrentLinkedQueue<MetaRoceRecvConnection> accepted = new ConcurrentLinkedQueue<>();

    MetaRoceListener(MetaRoceNetTransport transport, int id, byte[] handle, ProgressSignal signal) {
        super(handle, "the listener");
        this.transport = transport;
        this.id = id;
        this.signal = signal;
    }

    int id() {
        return id;
    }

    ProgressSignal signal() {
        return signal;
    }

    /** Driving thread: a connection for this listener completed its HELLO. */
    void offer(MetaRoceRecvConnection connection) {
        accepted.add(connection);
        signal.signal();
    }

    @Override
    public RecvConnection accept() {
        throwIfClosed();
        transport.driveFromCaller();
        MetaRoceRecvConnection c;
        while ((c = accepted.poll()) != null && c.isClosed()) {
            c.close();   // its sender gave up (a cancelled attempt) before anyone accepted it
        }
        return c;
    }

    @Override
    public void close() {
        markClosed();
    }
}
