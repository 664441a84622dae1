package io.jccl.net.aeronipc;

import io.aeron.Image;
import io.aeron.Subscription;
import io.jccl.net.aeron.AeronRecvConnection;

/**
 * The receiving end of an aeron-ipc connection: a subscription of its own on the sender's stream (the data path is
 * {@link AeronRecvConnection}'s); the peer's death is noticed through its process ({@link AeronIpcPeer}).
 */
final class AeronIpcRecvConnection extends AeronRecvConnection {
    AeronIpcRecvConnection(AeronIpcTransport transport, Subscription subscription, Image image, int peerRank, long peerPid,
                      String description) {
        super(AeronIpcTransportProvider.NAME, subscription, image, peerRank, description,
                new AeronIpcPeer(transport, peerRank, peerPid), transport.resources());
    }

    @Override
    protected String endOfStreamCause() {
        return "its process or the aeron-ipc media driver went away";
    }
}
