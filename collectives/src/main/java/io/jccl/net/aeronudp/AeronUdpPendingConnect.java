package io.jccl.net.aeronudp;

import io.aeron.Publication;
import io.jccl.net.SendConnection;
import io.jccl.net.aeron.HelloConnect;

/**
 * A non-blocking aeron-udp connection attempt ({@link HelloConnect}) to a listener's endpoint: the data
 * publication is on a random stream, and the hello carries its Aeron session id so the listener subscribes to
 * exactly it. A peer on another host cannot be looked up, so a dead listener costs the whole connect timeout.
 */
final class AeronUdpPendingConnect extends HelloConnect {
    private final AeronUdpTransport transport;
    private final AeronUdpHandle peer;

    AeronUdpPendingConnect(AeronUdpTransport transport, AeronUdpHandle peer, long helloRegistration,
                           long dataRegistration, int dataStreamId) {
        super(transport.driver().aeron(), "aeron-udp connection of rank " + transport.rank() + " to " + peer,
                transport.rank(), UdpWire.HELLO_MAGIC, peer.token().bytes(), helloRegistration, dataRegistration,
                dataStreamId, transport.connectTimeoutNs());
        this.transport = transport;
        this.peer = peer;
    }

    /** The session id in the low half; the high half is reserved, 0. */
    @Override
    protected long helloDetail(Publication data) {
        return Integer.toUnsignedLong(data.sessionId());
    }

    @Override
    protected SendConnection open(Publication data) {
        return transport.openSend(data, peer);
    }

    @Override
    protected String listenerProblem(long nowNs) {
        return null;
    }

    @Override
    protected String noListenerReason() {
        return "no listener answered on " + peer.endpoint();
    }

    @Override
    protected void ended(boolean connected) {
        transport.forget(this);
    }
}
