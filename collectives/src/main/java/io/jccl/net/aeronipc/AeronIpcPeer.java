package io.jccl.net.aeronipc;

import io.jccl.net.NetException;
import io.jccl.net.aeron.AeronConnection;

/**
 * The process at the other end of an aeron-ipc connection, and how its death is noticed: when a test makes no progress,
 * the peer process (and, for a sender, the driver's host process) is looked up at most every
 * {@link AeronIpcDriver#LIVENESS_CHECK_INTERVAL_NS}; a dead one breaks the connection with
 * {@link NetException.Reason#PEER_CLOSED} naming the peer. {@link ProcessHandle#isAlive()} also compares the
 * process start time, so a recycled pid does not pass for the peer.
 */
final class AeronIpcPeer implements AeronConnection.Peer {

    private final AeronIpcTransport transport;
    private final int rank;
    private final long pid;
    private final ProcessHandle process;
    private long lastCheckNs = System.nanoTime();

    AeronIpcPeer(AeronIpcTransport transport, int rank, long pid) {
        this.transport = transport;
        this.rank = rank;
        this.pid = pid;
        this.process = ProcessHandle.of(pid).orElse(null);
    }

    /** Breaks the connection when the peer, or for a sender the driver's host, is gone. */
    @Override
    public void check(boolean sender, String description, AeronConnection.Breaker breaker) {
        long now = System.nanoTime();
        if (now - lastCheckNs < AeronIpcDriver.LIVENESS_CHECK_INTERVAL_NS) {
            return;
        }
        lastCheckNs = now;
        if (process == null || !process.isAlive()) {
            breaker.breakConnection(NetException.Reason.PEER_CLOSED, description + " failed: " + name() + " is gone");
        } else if (sender && !transport.driver().ownerAlive(now)) {
            breaker.breakConnection(NetException.Reason.IO_ERROR, description + " failed: the aeron-ipc media driver's"
                    + " process (pid " + transport.driver().ownerPid() + ", " + transport.driver().directory()
                    + ") is gone");
        }
    }

    /** @return the peer for messages: its rank where known, and its pid */
    @Override
    public String name() {
        return (rank >= 0 ? "rank " + rank : "the listening process") + " (pid " + pid + " on this host)";
    }
}
