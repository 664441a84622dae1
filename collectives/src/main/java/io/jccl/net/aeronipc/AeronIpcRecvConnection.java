package io.jccl.net.aeronipc;

import io.aeron.Image;
import io.aeron.Subscription;
import io.jccl.net.aeron.AeronRecvConnection;

/**
 * The receiving end of an aeron-ipc connection: a subscription of its own on the sender's stream (the data path is
 * {@link AeronRecvConnection}'s); the peer's death is noticed through its process ({@link AeronIpcPeer}).
 */
final class AeronIpcRecvConnection extends AeronRecvConnection {
    private final AeronIpcTransport transport;
    private final AeronIpcPeer peer;
    /** Made once: a method reference built per check allocates wherever escape analysis gives up. */
    private final AeronIpcPeer.Breaker breaker = this::breakConnection;

    AeronIpcRecvConnection(AeronIpcTransport transport, Subscription subscription, Image image, int peerRank, long peerPid,
                      String description) {
        super(AeronIpcTransportProvider.NAME, subscription, image, peerRank, description);
        this.transport = transport;
        this.peer = new AeronIpcPeer(transport, peerRank, peerPid);
    }

    @Override
    protected void checkLiveness(boolean sender) {
        peer.check(sender, description, breaker);
    }

    @Override
    protected String peerName() {
        return peer.name();
    }

    @Override
    protected String endOfStreamCause() {
        return "its process or the aeron-ipc media driver went away";
    }

    @Override
    protected void onClosed() {
        transport.forget(this);
    }
}
