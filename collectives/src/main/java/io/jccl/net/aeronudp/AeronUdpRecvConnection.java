package io.jccl.net.aeronudp;

import io.aeron.Image;
import io.aeron.Subscription;
import io.jccl.net.aeron.AeronRecvConnection;

/**
 * The receiving end of an aeron-udp connection: a subscription of its own to the sender's stream and session on
 * the listener's endpoint (the data path is {@link AeronRecvConnection}'s). A dead peer is noticed by Aeron: an
 * image without data or heartbeats for the peer timeout is closed, and pending receives fail with
 * {@code PEER_CLOSED}.
 */
final class AeronUdpRecvConnection extends AeronRecvConnection {
    private final AeronUdpTransport transport;

    AeronUdpRecvConnection(AeronUdpTransport transport, Subscription subscription, Image image, int peerRank,
                           String description) {
        super(AeronUdpTransportProvider.NAME, subscription, image, peerRank, description,
                Peer.watchedByAeron("rank " + peerRank), transport.resources());
        this.transport = transport;
    }

    @Override
    protected String endOfStreamCause() {
        return "its process died, or the network was silent for " + transport.options().peerTimeoutMs() + " ms ("
                + AeronUdpOptions.PEER_TIMEOUT_MS + ")";
    }
}
