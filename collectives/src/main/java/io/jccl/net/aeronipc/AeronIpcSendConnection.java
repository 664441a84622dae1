package io.jccl.net.aeronipc;

import io.aeron.Publication;
import io.jccl.net.aeron.AeronSendConnection;

/**
 * The sending end of an aeron-ipc connection: one IPC publication on a stream of this process that only this connection
 * uses (the data path is {@link AeronSendConnection}'s); the peer's death is noticed through its process
 * ({@link AeronIpcPeer}).
 */
final class AeronIpcSendConnection extends AeronSendConnection {
    private final AeronIpcTransport transport;
    private final int streamId;
    private final AeronIpcPeer peer;
    /** Made once: a method reference built per check allocates wherever escape analysis gives up. */
    private final AeronIpcPeer.Breaker breaker = this::breakConnection;

    AeronIpcSendConnection(AeronIpcTransport transport, Publication publication, int streamId, int peerRank, long peerPid,
                      String description) {
        super(AeronIpcTransportProvider.NAME, publication, peerRank, description);
        this.transport = transport;
        this.streamId = streamId;
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
    protected String publicationClosedCause() {
        return "the aeron-ipc media driver " + transport.driver().directory() + " went away?";
    }

    @Override
    protected void afterPublicationClosed() {
        StreamIds.release(streamId);
    }

    @Override
    protected void onClosed() {
        transport.forget(this);
    }
}
