package io.jccl.metaroce.protocol.conn;

import io.jccl.metaroce.protocol.path.PathState;
import io.jccl.metaroce.protocol.path.SenderPath;

/**
 * Where one connection's next DATA packet goes, and whether it may go at all: spraying over the paths by room per
 * round trip, small lazily acknowledged messages kept on the path the last packet took, suspect paths tested with new
 * data, and the cap on the bytes in flight that the receiver's granted rate implies. A policy over the paths' state,
 * apart from the reliability of what is sent ({@link OutboundQueue}) and the pacing rate itself ({@link Pacer}).
 * Single-threaded; allocates nothing.
 */
final class PathChooser {
    /** How much less room (packets, at equal round-trip times) the last packet's path may have and keep the next. */
    static final int STICKY_ROOM_PACKETS = 16;

    private final SenderPath[] tx;
    private final Pacer pacer;
    private final int payloadBytes;
    private int pathCursor;
    /** The path the last packet took. */
    private int lastPath;

    /**
     * @param tx           the connection's sending paths
     * @param pacer        its pacer, whose granted rate caps the bytes in flight
     * @param payloadBytes payload bytes per packet
     */
    PathChooser(SenderPath[] tx, Pacer pacer, int payloadBytes) {
        this.tx = tx;
        this.pacer = pacer;
        this.payloadBytes = payloadBytes;
    }

    /**
     * @return whether the connection has as many bytes in flight as its granted rate allows: twice the rate times the
     *         smallest round trip, plus 8 payloads (never while no rate was granted or no path has a round trip)
     */
    boolean connectionWindowFull() {
        double rateBytesPerSecond = pacer.rateBytesPerSecond();
        if (rateBytesPerSecond <= 0) {
            return false;
        }
        long inflight = 0;
        long minRtt = Long.MAX_VALUE;
        for (SenderPath p : tx) {
            inflight += p.bytesInFlight();
            if (p.hasRtt()) {
                minRtt = Math.min(minRtt, p.srttNs());
            }
        }
        if (minRtt == Long.MAX_VALUE) {
            return false;
        }
        double window = rateBytesPerSecond * minRtt / 1e9 * 2 + 8.0 * payloadBytes;
        return inflight >= window;
    }

    /**
     * Spraying: the usable path with the most room per unit of round-trip time; ties rotate. A lazily acknowledged
     * message ({@code sticky}) takes the path the last packet took while its room is within
     * {@link #STICKY_ROOM_PACKETS} of the best: such small messages then share one path and its acknowledgements,
     * which come one per {@link Connection#LAZY_ACK_EVERY_PACKETS} messages of a path (spread over 8 paths, the delay
     * ran out first and each path's ACK covered one or two). A suspect path is tested with the next new packet
     * ({@code fresh}: one is waiting): silence fails it, an ACK clears it.
     * Retransmissions go to healthy paths while one has room: a path that timed out may be bad, and an answer on a
     * sibling is what tells a bad path from a silent peer.
     *
     * @return the path, or null when none has room
     */
    SenderPath pickPath(boolean fresh, boolean sticky) {
        SenderPath best = null;
        SenderPath suspect = null;
        long bestRoom = 0;
        long bestRttNs = 1;
        int n = tx.length;
        int i = pathCursor;
        for (int k = 0; k < n; k++, i = i + 1 == n ? 0 : i + 1) {
            SenderPath p = tx[i];
            int room = p.room();
            if (room <= 0) {
                continue;
            }
            if (p.state() == PathState.SUSPECT) {
                if (fresh) {
                    best = p;
                    break;
                }
                if (suspect == null) {
                    suspect = p;
                }
                continue;
            }
            long rttNs = Math.max(1, p.srttNs());   // 0 (no sample yet) counts as the shortest
            // room / rtt > bestRoom / bestRtt, without dividing
            if (best == null || room * bestRttNs > bestRoom * rttNs) {
                best = p;
                bestRoom = room;
                bestRttNs = rttNs;
            }
        }
        SenderPath last = tx[lastPath];
        if (sticky && best != null && best != last && best.state() == PathState.ACTIVE
                && last.state() == PathState.ACTIVE && last.room() > 0
                && (last.room() + STICKY_ROOM_PACKETS) * bestRttNs >= bestRoom * Math.max(1, last.srttNs())) {
            best = last;
        }
        if (best == null) {
            best = suspect;
        }
        if (best != null) {
            pathCursor = best.index + 1 == n ? 0 : best.index + 1;
            lastPath = best.index;
        }
        return best;
    }
}
