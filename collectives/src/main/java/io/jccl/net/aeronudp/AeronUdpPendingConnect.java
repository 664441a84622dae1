package io.jccl.net.aeronudp;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.jccl.net.NetException;
import io.jccl.net.PendingConnect;
import io.jccl.net.SendConnection;
import java.nio.ByteOrder;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A non-blocking connection attempt. {@link AeronUdpTransport#connect} asks the driver for two publications to the
 * listener's endpoint: a small one on its hello stream and the connection's data publication on a random stream.
 * Each {@link #poll()} moves one step: once the hello publication is connected (the listener's driver answered its
 * setup), the hello frame naming the data stream and session is written — only from {@code poll()}, so an attempt
 * cancelled before its first poll never reaches the listener; once the listener subscribed to the data stream and
 * its driver answered, the hello publication is closed and the connection returned. Fails with
 * {@link NetException.Reason#IO_ERROR} when the connect timeout passes (a peer on another host cannot be looked up,
 * so a dead listener costs the whole timeout).
 */
final class AeronUdpPendingConnect implements PendingConnect {
    private final AeronUdpTransport transport;
    private final Aeron aeron;
    private final AeronUdpHandle peer;
    private final long helloRegistration;
    private final long dataRegistration;
    private final int dataStreamId;
    private final long startNs;
    private ExclusivePublication hello;
    private Publication data;
    private boolean helloSent;
    private AeronUdpSendConnection connection;
    private NetException failure;
    private boolean released;
    private volatile boolean cancelled;

    AeronUdpPendingConnect(AeronUdpTransport transport, AeronUdpHandle peer, long helloRegistration,
                           long dataRegistration, int dataStreamId) {
        this.transport = transport;
        this.aeron = transport.driver().aeron();
        this.peer = peer;
        this.helloRegistration = helloRegistration;
        this.dataRegistration = dataRegistration;
        this.dataStreamId = dataStreamId;
        this.startNs = System.nanoTime();
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
            throw new NetException(NetException.Reason.CLOSED, "aeron-udp connection attempt to " + peer
                    + " was cancelled");
        }
        try {
            if (hello == null) {
                hello = aeron.getExclusivePublication(helloRegistration);
            }
            if (data == null) {
                data = aeron.getPublication(dataRegistration);
            }
        } catch (RuntimeException e) {
            throw fail("the aeron-udp media driver refused a publication: " + e, e);
        }
        if (hello != null && data != null && !helloSent && hello.isConnected()) {
            helloSent = sendHello();
        }
        if (helloSent && data.isConnected()) {
            closeQuietly(hello, helloRegistration);
            connection = transport.openSend(data, peer);
            released = true;
            transport.forget(this);
            return connection;
        }
        long elapsedNs = System.nanoTime() - startNs;
        if (elapsedNs > transport.connectTimeoutNs()) {
            throw fail("timed out after " + elapsedNs / 1_000_000 + " ms (" + (hello == null || !hello.isConnected()
                    ? "no listener answered on " + peer.endpoint() : "the listener did not take the connection")
                    + ")", null);
        }
        return null;
    }

    private boolean sendHello() {
        UnsafeBuffer frame = new UnsafeBuffer(new byte[UdpWire.HELLO_BYTES]);
        frame.putInt(0, UdpWire.HELLO_MAGIC, ByteOrder.LITTLE_ENDIAN);
        frame.putShort(4, (short) UdpWire.VERSION, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(8, transport.rank(), ByteOrder.LITTLE_ENDIAN);
        frame.putInt(12, dataStreamId, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(16, data.sessionId(), ByteOrder.LITTLE_ENDIAN);
        frame.putBytes(24, peer.token());
        long result = hello.offer(frame, 0, UdpWire.HELLO_BYTES);
        if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED) {
            throw fail("the hello publication failed (Aeron result " + result + ")", null);
        }
        return result > 0;
    }

    private NetException fail(String why, Throwable cause) {
        failure = new NetException(cancelled ? NetException.Reason.CLOSED : NetException.Reason.IO_ERROR,
                "aeron-udp connection of rank " + transport.rank() + " to " + peer + " failed: " + why, cause);
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
        closeQuietly(hello, helloRegistration);
        closeQuietly(data, dataRegistration);
        transport.forget(this);
    }

    private void closeQuietly(Publication publication, long registration) {
        try {
            if (publication != null) {
                publication.close();
            } else {
                aeron.asyncRemovePublication(registration);
            }
        } catch (RuntimeException ignored) {
            // the client is gone: nothing left to remove
        }
    }

    @Override
    public String toString() {
        return "aeron-udp connect to " + peer;
    }
}
