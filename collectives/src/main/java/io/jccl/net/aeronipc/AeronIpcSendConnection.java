package io.jccl.net.aeronipc;

import io.aeron.Publication;
import io.jccl.net.aeron.AeronSendConnection;

/**
 * The sending end of an aeron-ipc connection: one IPC publication on a stream of this process that only this connection
 * uses (the data path is {@link AeronSendConnection}'s); the peer's death is noticed through its process
 * ({@link AeronIpcPeer}).
 */
final class AeronIpcSendConnection extends AeronSendConnection {
    private final int streamId;

    AeronIpcSendConnection(AeronIpcTransport transport, Publication publication, int streamId, int peerRank, long peerPid,
                      String description) {
        super(AeronIpcTransportProvider.NAME, publication, peerRank, description,
                new AeronIpcPeer(transport, peerRank, peerPid), transport.resources(), transport.driver().directory());
        this.streamId = streamId;
    }

    @Override
    protected void afterPublicationClosed() {
        StreamIds.release(streamId);
    }
}
