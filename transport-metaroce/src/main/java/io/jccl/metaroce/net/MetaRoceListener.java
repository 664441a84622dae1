package io.jccl.metaroce.net;

import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;

import java.util.concurrent.ConcurrentLinkedQueue;

/** A {@code metaroce} listener: hands out the receiving ends whose HELLO reached the transport's accepting side. */
final class MetaRoceListener implements Listener {
    private final MetaRoceNetTransport transport;
    private final int id;
    private final byte[] handle;
    private final ProgressSignal signal;
    private final ConcurrentLinkedQueue<MetaRoceRecvConnection> accepted = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    MetaRoceListener(MetaRoceNetTransport transport, int id, byte[] handle, ProgressSignal signal) {
        this.transport = transport;
        this.id = id;
        this.handle = handle;
        this.signal = signal;
    }

    int id() {
        return id;
    }

    ProgressSignal signal() {
        return signal;
    }

    boolean isClosed() {
        return closed;
    }

    /** Driving thread: a connection for this listener completed its HELLO. */
    void offer(MetaRoceRecvConnection connection) {
        accepted.add(connection);
        signal.signal();
    }

    @Override
    public byte[] handle() {
        return handle.clone();
    }

    @Override
    public RecvConnection accept() {
        if (closed) {
            throw new NetException(NetException.Reason.CLOSED, "the listener is closed");
        }
        transport.driveFromCaller();
        MetaRoceRecvConnection c;
        while ((c = accepted.poll()) != null && c.isClosed()) {
            c.close();   // its sender gave up (a cancelled attempt) before anyone accepted it
        }
        return c;
    }

    @Override
    public void close() {
        closed = true;
    }
}
