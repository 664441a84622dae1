package io.jccl.metaroce.net;

import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.conn.Connection;

import java.util.List;

/**
 * What a {@link MetaRoceNetTransport} tells about itself: its endpoints' counters in a line, its connections' paths
 * for monitoring, and, when it closes, what a connection did not deliver.
 */
final class TransportDiagnostics {
    private TransportDiagnostics() {
    }

    /** Appends one endpoint's socket counters and its protocol counters and drops (by reason) that are not zero. */
    static void describe(StringBuilder out, String name, Side side) {
        out.append(" | ").append(name).append(": socketsRebound=").append(side.driver.socketsRebound())
                .append(" datagramsSent=").append(side.driver.datagramsSent())
                .append(" datagramsReceived=").append(side.driver.datagramsReceived());
        for (Counter c : Counter.values()) {
            long v = side.endpoint.counters().get(c);
            if (v != 0) {
                out.append(' ').append(c.name()).append('=').append(v);
            }
        }
        for (DropReason r : DropReason.values()) {
            long v = side.endpoint.counters().drops(r);
            if (v != 0) {
                out.append(' ').append(r.metricName()).append('=').append(v);
            }
        }
    }

    /** Adds the paths of every connection of {@code endpoint}, read racily (see {@link MetaRoceNetTransport#paths}). */
    static void addPaths(List<MetaRoceNetTransport.PathView> out, String name, Endpoint endpoint) {
        try {
            int n = endpoint.connectionCount();
            for (int i = 0; i < n; i++) {
                int id = endpoint.connectionIdAt(i);
                var c = endpoint.connection(id);
                if (c == null) {
                    continue;
                }
                for (int p = 0; p < c.paths(); p++) {
                    out.add(new MetaRoceNetTransport.PathView(name, id, p, c.peer, c.senderPath(p)));
                }
            }
        } catch (RuntimeException e) {
            // the driver changed the connection table under the read: the next snapshot catches up
        }
    }

    /** A connection that did not close gracefully within the linger: says what was not delivered, naming the peer. */
    static void reportUnfinished(int rank, long closeLingerNs, Side side, int connectionId, Connection c) {
        int peerRank = side.peerRanks.get(connectionId);
        String peer = peerRank >= 0 ? "rank " + peerRank : "a peer";
        int messages = c.unacknowledgedMessages();
        String linger = MetaRoceOptions.CLOSE_LINGER_MS + "=" + closeLingerNs / 1_000_000;
        if (messages > 0) {
            MetaRoceNetTransport.LOG.warn("metaroce rank {}: closing without delivering {} message(s) ({} bytes) to "
                    + "{}: not acknowledged within {} ms ({}); that peer will miss them", rank, messages,
                    c.unacknowledgedBytes(), peer, closeLingerNs / 1_000_000, linger);
        } else {
            MetaRoceNetTransport.LOG.info("metaroce rank {}: closing while {} has not confirmed the close within {} "
                    + "ms ({}); everything this rank sent was delivered", rank, peer, closeLingerNs / 1_000_000,
                    linger);
        }
    }
}
