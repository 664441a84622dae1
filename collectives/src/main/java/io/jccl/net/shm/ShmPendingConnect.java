package io.jccl.net.shm;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.jccl.net.NetException;
import io.jccl.net.PendingConnect;
import io.jccl.net.SendConnection;
import java.nio.ByteOrder;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A non-blocking connection attempt. {@link ShmTransport#connect} asks the driver for two publications: a small
 * one on the listener's hello stream and the connection's data publication on a fresh stream of this process. Each
 * {@link #poll()} then moves one step: once the hello publication reaches the listener, the hello frame (naming
 * the data stream) is written — only from {@code poll()}, so an attempt cancelled before its first poll never
 * reaches the listener; once the listener subscribed to the data stream, the hello publication is closed and the
 * connection returned. Fails with {@link NetException.Reason#IO_ERROR} when the listening process is gone or the
 * connect timeout passes.
 */
final class ShmPendingConnect implements PendingConnect {
    private final ShmTransport transport;
    private final Aeron aeron;
    private final ShmHandle peer;
    private final long helloRegistration;
    private final long dataRegistration;
    private final int dataStreamId;
    private final long startNs;
    private final long deadlineNs;
    private final ProcessHandle listenerProcess;
    private long lastLivenessCheckNs;
    private ExclusivePublication hello;
    private Publication data;
    private boolean helloSent;
    private ShmSendConnection connection;
    private NetException failure;
    private boolean released;
    private volatile boolean cancelled;

    ShmPendingConnect(ShmTransport transport, ShmHandle peer, long helloRegistration, long dataRegistration,
                      int dataStreamId) {
        this.transport = transport;
        this.aeron = transport.driver().aeron();
        this.peer = peer;
        this.helloRegistration = helloRegistration;
        this.dataRegistration = dataRegistration;
        this.dataStreamId = dataStreamId;
        this.startNs = System.nanoTime();
        this.deadlineNs = startNs + transport.connectTimeoutNs();
        this.lastLivenessCheckNs = startNs;
        this.listenerProcess = ProcessHandle.of(peer.pid()).orElse(null);
    }

    @Override
    public synchronized SendConnection poll() {
        if (connection != null) {
            return connection;
        }
        if (failure != null) {
            throw failure;
        }
        if (cancelled) {
            throw new NetException(NetException.Reason.CLOSED, "shm connection attempt to " + peer + " was cancelled");
        }
        try {
            if (hello == null) {
                hello = aeron.getExclusivePublication(helloRegistration);
            }
            if (data == null) {
                data = aeron.getPublication(dataRegistration);
            }
        } catch (RuntimeException e) {
            throw fail(NetException.Reason.IO_ERROR, "the shm media driver refused a publication: " + e, e);
        }
        if (hello != null && !helloSent && hello.isConnected()) {
            helloSent = sendHello();
        }
        if (helloSent && data != null && data.isConnected()) {
            closeHello();
            connection = transport.openSend(data, dataStreamId, peer);
            released = true;
            transport.forget(this);
            return connection;
        }
        long now = System.nanoTime();
        if (now - deadlineNs > 0) {
            throw fail(NetException.Reason.IO_ERROR, "timed out after " + (now - startNs) / 1_000_000 + " ms ("
                    + (hello == null || !hello.isConnected() ? "no listener subscribed to the hello stream"
                    : "the listener did not take the connection") + ")", null);
        }
        if (now - lastLivenessCheckNs > ShmDriver.LIVENESS_CHECK_INTERVAL_NS) {
            lastLivenessCheckNs = now;
            if (listenerProcess == null || !listenerProcess.isAlive()) {
                throw fail(NetException.Reason.IO_ERROR, "the listening process (pid " + peer.pid() + ") is gone",
                        null);
            }
            if (!transport.driver().ownerAlive(now)) {
                throw fail(NetException.Reason.IO_ERROR, "the shm media driver's process (pid "
                        + transport.driver().ownerPid() + ") is gone", null);
            }
        }
        return null;
    }

    private boolean sendHello() {
        UnsafeBuffer frame = new UnsafeBuffer(new byte[Wire.HELLO_BYTES]);
        frame.putInt(0, Wire.HELLO_MAGIC, ByteOrder.LITTLE_ENDIAN);
        frame.putShort(4, (short) Wire.VERSION, ByteOrder.LITTLE_ENDIAN);
        frame.putShort(6, (short) 0, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(8, transport.rank(), ByteOrder.LITTLE_ENDIAN);
        frame.putInt(12, dataStreamId, ByteOrder.LITTLE_ENDIAN);
        frame.putLong(16, ProcessHandle.current().pid(), ByteOrder.LITTLE_ENDIAN);
        frame.putBytes(24, peer.token());
        long result = hello.offer(frame, 0, Wire.HELLO_BYTES);
        if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED) {
            throw fail(NetException.Reason.IO_ERROR, "the hello publication failed (Aeron result " + result + ")", null);
        }
        return result > 0;
    }

    private NetException fail(NetException.Reason reason, String why, Throwable cause) {
        failure = new NetException(cancelled ? NetException.Reason.CLOSED : reason, "shm connection of rank "
                + transport.rank() + " to " + peer + " failed: " + why, cause);
        release();
        return failure;
    }

    @Override
    public synchronized void cancel() {
        if (connection != null || cancelled) {
            return;
        }
        cancelled = true;
        release();
    }

    private void release() {
        if (released) {
            return;
        }
        released = true;
        closeHello();
        try {
            if (data != null) {
                data.close();
            } else {
                aeron.asyncRemovePublication(dataRegistration);
            }
        } catch (RuntimeException ignored) {
            // the client is gone: nothing left to remove
        }
        StreamIds.release(dataStreamId);
        transport.forget(this);
    }

    private void closeHello() {
        try {
            if (hello != null) {
                hello.close();
            } else {
                aeron.asyncRemovePublication(helloRegistration);
            }
        } catch (RuntimeException ignored) {
            // the client is gone: nothing left to remove
        }
    }

    @Override
    public String toString() {
        return "shm connect to " + peer;
    }
}
