package io.jccl.metaroce.udp;

import java.net.InetSocketAddress;

/**
 * What both kinds of path socket keep alike: the counters they share with their driver, and what binding the socket
 * learned (its address and the buffers the kernel granted), which a {@link #rebind} replaces.
 */
abstract class BoundDatagramIo implements DatagramIo {
    /** The driver's counts, which every socket of the driver adds to. */
    protected final IoCounters counters;
    private final IoMethod method;
    private InetSocketAddress localAddress;
    private int grantedReceiveBufferBytes;
    private int grantedSendBufferBytes;

    /**
     * @param method   {@link IoMethod#NATIVE} or {@link IoMethod#CHANNEL}: how this socket does its I/O
     * @param counters the driver's counts
     */
    BoundDatagramIo(IoMethod method, IoCounters counters) {
        this.method = method;
        this.counters = counters;
    }

    /**
     * Records what a socket just bound (or bound again) learned.
     *
     * @param localAddress              its address
     * @param grantedReceiveBufferBytes its receive buffer, as the kernel reports it
     * @param grantedSendBufferBytes    its send buffer, as the kernel reports it
     */
    final void bound(InetSocketAddress localAddress, int grantedReceiveBufferBytes, int grantedSendBufferBytes) {
        this.localAddress = localAddress;
        this.grantedReceiveBufferBytes = grantedReceiveBufferBytes;
        this.grantedSendBufferBytes = grantedSendBufferBytes;
    }

    @Override
    public final IoMethod method() {
        return method;
    }

    @Override
    public final InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public final int grantedReceiveBufferBytes() {
        return grantedReceiveBufferBytes;
    }

    @Override
    public final int grantedSendBufferBytes() {
        return grantedSendBufferBytes;
    }
}
