package io.jccl.net.shm;

import io.aeron.Image;
import io.aeron.Subscription;
import io.jccl.net.aeron.AeronRecvConnection;

/**
 * The receiving end of an shm connection: a subscription of its own on the sender's stream (the data path is
 * {@link AeronRecvConnection}'s); the peer's death is noticed through its process ({@link ShmPeer}).
 */
final class ShmRecvConnection extends AeronRecvConnection {
    private final ShmTransport transport;
    private final ShmPeer peer;

    ShmRecvConnection(ShmTransport transport, Subscription subscription, Image image, int peerRank, long peerPid,
                      String description) {
        super(ShmTransportProvider.NAME, subscription, image, peerRank, description);
        this.transport = transport;
        this.peer = new ShmPeer(transport, peerRank, peerPid);
    }

    @Override
    protected void checkLiveness(boolean sender) {
        peer.check(sender, description, this::breakConnection);
    }

    @Override
    protected String peerName() {
        return peer.name();
    }

    @Override
    protected String endOfStreamCause() {
        return "its process or the shm media driver went away";
    }

    @Override
    protected void onClosed() {
        transport.forget(this);
    }
}
