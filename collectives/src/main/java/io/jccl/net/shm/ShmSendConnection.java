package io.jccl.net.shm;

import io.aeron.Publication;
import io.jccl.net.aeron.AeronSendConnection;

/**
 * The sending end of an shm connection: one IPC publication on a stream of this process that only this connection
 * uses (the data path is {@link AeronSendConnection}'s); the peer's death is noticed through its process
 * ({@link ShmPeer}).
 */
final class ShmSendConnection extends AeronSendConnection {
    private final ShmTransport transport;
    private final int streamId;
    private final ShmPeer peer;

    ShmSendConnection(ShmTransport transport, Publication publication, int streamId, int peerRank, long peerPid,
                      String description) {
        super(ShmTransportProvider.NAME, publication, peerRank, description);
        this.transport = transport;
        this.streamId = streamId;
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
    protected String publicationClosedCause() {
        return "the shm media driver " + transport.driver().directory() + " went away?";
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
