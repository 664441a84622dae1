package io.jccl.net.aeronipc;

import io.aeron.Publication;
import io.jccl.net.SendConnection;
import io.jccl.net.aeron.HelloConnect;

/**
 * A non-blocking aeron-ipc connection attempt ({@link HelloConnect}): the data publication is on a fresh stream of this
 * process, the hello carries this process's pid, and while waiting the listening process and the driver's host are
 * looked up (at most every {@link AeronIpcDriver#LIVENESS_CHECK_INTERVAL_NS}), so a dead listener fails the attempt at
 * once rather than at the connect timeout.
 */
final class AeronIpcPendingConnect extends HelloConnect {
    private final AeronIpcTransport transport;
    private final AeronIpcHandle peer;
    private final ProcessHandle listenerProcess;
    private long lastLivenessCheckNs = System.nanoTime();

    AeronIpcPendingConnect(AeronIpcTransport transport, AeronIpcHandle peer, long helloRegistration, long dataRegistration,
                      int dataStreamId) {
        super(transport.driver().aeron(), "aeron-ipc connection of rank " + transport.rank() + " to " + peer,
                transport.rank(), Wire.HELLO_MAGIC, peer.token().bytes(), helloRegistration, dataRegistration, dataStreamId,
                transport.connectTimeoutNs());
        this.transport = transport;
        this.peer = peer;
        this.listenerProcess = ProcessHandle.of(peer.pid()).orElse(null);
    }

    @Override
    protected long helloDetail(Publication data) {
        return ProcessHandle.current().pid();
    }

    @Override
    protected SendConnection open(Publication data) {
        return transport.openSend(data, dataStreamId(), peer);
    }

    @Override
    protected String listenerProblem(long nowNs) {
        if (nowNs - lastLivenessCheckNs <= AeronIpcDriver.LIVENESS_CHECK_INTERVAL_NS) {
            return null;
        }
        lastLivenessCheckNs = nowNs;
        if (listenerProcess == null || !listenerProcess.isAlive()) {
            return "the listening process (pid " + peer.pid() + ") is gone";
        }
        if (!transport.driver().ownerAlive(nowNs)) {
            return "the aeron-ipc media driver's process (pid " + transport.driver().ownerPid() + ") is gone";
        }
        return null;
    }

    @Override
    protected String noListenerReason() {
        return "no listener subscribed to the hello stream";
    }

    @Override
    protected void ended(boolean connected) {
        if (!connected) {
            StreamIds.release(dataStreamId());
        }
        transport.forget(this);
    }
}
