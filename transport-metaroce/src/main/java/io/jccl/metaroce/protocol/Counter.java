package io.jccl.metaroce.protocol;

/** The core's counters, with stable names (exported as metrics; renaming one breaks dashboards). */
public enum Counter {
    /** DATA packets sent, first transmissions and retransmissions. */
    DATA_PACKETS_SENT("metaroce.packets.sent.data"),
    /** Payload bytes sent in DATA packets, retransmissions included. */
    PAYLOAD_BYTES_SENT("metaroce.bytes.sent.payload"),
    /** ACK packets sent. */
    ACK_PACKETS_SENT("metaroce.packets.sent.ack"),
    /** Control packets sent (handshake, probe, close, RNR). */
    CONTROL_PACKETS_SENT("metaroce.packets.sent.control"),
    /** DATA packets received and accepted. */
    DATA_PACKETS_RECEIVED("metaroce.packets.received.data"),
    /** Payload bytes placed into memory for the first time. */
    PAYLOAD_BYTES_PLACED("metaroce.bytes.received.placed"),
    /** DATA packets whose data was already placed (duplicates, spurious retransmissions). */
    DUPLICATE_PACKETS_RECEIVED("metaroce.packets.received.duplicate"),
    /** ACK packets received and accepted. */
    ACK_PACKETS_RECEIVED("metaroce.packets.received.ack"),
    /** Control packets received and accepted. */
    CONTROL_PACKETS_RECEIVED("metaroce.packets.received.control"),
    /** Packets retransmitted because a later packet of the same path was acknowledged (SACK hole). */
    RETRANSMITS_SACK("metaroce.retransmits.sack"),
    /**
     * Packets retransmitted because their path's retransmission timer fired, or because they went out into an
     * outage of every path that is over (the peer answered later packets: they are re-tested at once).
     */
    RETRANSMITS_RTO("metaroce.retransmits.rto"),
    /** Packets moved off a failed path onto healthy ones. */
    RETRANSMITS_REROUTED("metaroce.retransmits.rerouted"),
    /** Packets sent again by a tail probe: the newest of a path that went quiet with packets unacknowledged. */
    RETRANSMITS_TAIL("metaroce.retransmits.tail"),
    /** Holes seen in SACK bitmaps. */
    SACK_HOLES("metaroce.sack.holes"),
    /** DATA packets received with the ECN CE mark. */
    ECN_MARKS_RECEIVED("metaroce.ecn.marks.received"),
    /** Window reductions made in reaction to ECN. */
    ECN_WINDOW_CUTS("metaroce.ecn.window.cuts"),
    /** Retransmission timer expiries. */
    RTO_FIRINGS("metaroce.rto.firings"),
    /**
     * Retransmission timers that expired while the local host was stalled (the endpoint was driven more than the RTO
     * floor after they were due): restarted from the end of the stall instead of fired.
     */
    RTO_DEFERRED_BY_STALL("metaroce.rto.deferred.stall"),
    /**
     * Local stalls: the endpoint was driven more than the RTO floor after a path timer (timeout, silence verdict,
     * probe, connection silence) was due; those timers were restarted, not held against the paths.
     */
    STALLS_DETECTED("metaroce.stalls.detected"),
    /** Paths that went from active to suspect. */
    PATHS_SUSPECTED("metaroce.paths.suspected"),
    /** Paths declared failed. */
    PATHS_FAILED("metaroce.paths.failed"),
    /**
     * Paths that reached {@code failAfterRtos} timeouts in a row while the peer answered on no other path since
     * their packets went out (a stalled or unreachable peer): kept suspect, not failed and not re-routed.
     */
    PATH_FAILURES_WITHHELD("metaroce.paths.failures.withheld"),
    /** Failed paths moved to a new route (new generation, new source port). */
    PATHS_REROUTED("metaroce.paths.rerouted"),
    /**
     * Re-routes made while nothing sent was answered on any path of the connection for a quarter of the silence
     * limit: one path at a time, looking for a route that works (also counted in {@link #PATHS_REROUTED}).
     */
    PATHS_REROUTED_SILENT("metaroce.paths.rerouted.silent"),
    /** Paths readmitted after successful probes. */
    PATHS_READMITTED("metaroce.paths.readmitted"),
    /** Probes sent. */
    PROBES_SENT("metaroce.probes.sent"),
    /** Receiver-not-ready replies sent. */
    RNR_SENT("metaroce.rnr.sent"),
    /** Receiver-not-ready replies received. */
    RNR_RECEIVED("metaroce.rnr.received"),
    /** Connections established. */
    CONNECTIONS_OPENED("metaroce.connections.opened"),
    /** Connections closed or failed. */
    CONNECTIONS_CLOSED("metaroce.connections.closed"),
    /** Graceful CLOSEs (reason DRAINED) sent by a closing side, repeats included (answers are not counted). */
    DRAINED_CLOSES_SENT("metaroce.close.drained.sent"),
    /** Connections that closed gracefully: everything either side sent was acknowledged. */
    CONNECTIONS_CLOSED_DRAINED("metaroce.connections.closed.drained"),
    /**
     * Connections failed because nothing was received from the peer on any path for {@code connectionDeadNs} while
     * waiting for answers (also counted in {@link #CONNECTIONS_CLOSED}).
     */
    CONNECTIONS_DEAD("metaroce.connections.dead"),
    /** Work items completed. */
    COMPLETIONS("metaroce.completions");

    private final String metricName;

    Counter(String metricName) {
        this.metricName = metricName;
    }

    /** @return the counter's stable name */
    public String metricName() {
        return metricName;
    }
}
