package io.jccl.net.aeronudp;

import io.aeron.Publication;
import io.jccl.net.aeron.AeronSendConnection;

/**
 * The sending end of an aeron-udp connection: one UDP publication to the peer's endpoint on a stream of its own
 * (the data path is {@link AeronSendConnection}'s). A dead peer is noticed by Aeron: without status messages from
 * the receiver for the peer timeout the publication is no longer connected, and the next claim fails the
 * connection with {@code PEER_CLOSED}.
 */
final class AeronUdpSendConnection extends AeronSendConnection {
    AeronUdpSendConnection(AeronUdpTransport transport, Publication publication, String peer, String description) {
        super(AeronUdpTransportProvider.NAME, publication, -1, description,
                Peer.watchedByAeron("the listener at " + peer), transport.resources(), transport.driver().directory());
    }
}
