package io.jccl.metaroce.sim;

import io.jccl.config.Arguments;

/**
 * Settings of the RoCEv2 go-back-N baseline ({@link GoBackNEndpoint}) beyond those it takes from
 * {@link io.jccl.metaroce.protocol.EndpointConfig} (payload size, ACK coalescing, delayed-ACK time, RNR retry time,
 * pending-work limit).
 *
 * @param windowPackets       packets in flight (sent, not yet acknowledged), fixed: RoCEv2 has no window of its own,
 *                            a NIC keeps about a bandwidth-delay product in flight; 1 to 2^22 (default 64: 256 KiB of
 *                            4 KiB packets, about two BDPs at 100 Gbit/s and 10 µs)
 * @param rtoNs               retransmission timeout, fixed, no backoff (default 1 ms; real NICs use
 *                            4.096 µs * 2^timeout and NCCL's default timeout is far longer, so this flatters the
 *                            baseline)
 * @param dupAckThreshold     duplicate cumulative ACKs that trigger going back (default 3)
 * @param lineRateBitsPerSecond the NIC's transmit rate: data packets leave no faster than this, as a NIC's transmit
 *                            engine builds packets when the wire is free (so a go-back takes effect at once instead
 *                            of behind a queue of stale packets); 0 = unpaced (default 100 Gbit/s)
 * @param wireOverheadBytes   bytes per datagram on the wire beyond it, for pacing (default 66, as the fabric's)
 * @param burstNs             how far ahead of the wire the engine may run (default 1 µs: about 3 packets of 4 KiB)
 * @param dcqcn               DCQCN rate control per connection, or null for none (default none: the baseline as the
 *                            loss scenarios measure it; the Clos simulation turns it on); needs a line rate
 */
public record GoBackNConfig(int windowPackets, long rtoNs, int dupAckThreshold, long lineRateBitsPerSecond,
                            int wireOverheadBytes, long burstNs, DcqcnConfig dcqcn) {
    /** Checks every value. */
    public GoBackNConfig {
        Arguments.inRange("windowPackets", windowPackets, 1, 1 << 22);
        Arguments.positive("rtoNs", rtoNs);
        Arguments.atLeast("dupAckThreshold", dupAckThreshold, 1);
        Arguments.atLeast("lineRateBitsPerSecond", lineRateBitsPerSecond, 0);
        Arguments.atLeast("wireOverheadBytes", wireOverheadBytes, 0);
        Arguments.atLeast("burstNs", burstNs, 0);
        if (dcqcn != null && lineRateBitsPerSecond == 0) {
            throw new IllegalArgumentException("DCQCN paces below a line rate: lineRateBitsPerSecond must be > 0");
        }
    }

    /** @return 64 packets, 1 ms, 3 duplicate ACKs, paced at 100 Gbit/s with 66 bytes of overhead, 1 µs burst */
    public static GoBackNConfig defaults() {
        return new GoBackNConfig(64, 1_000_000, 3, 100_000_000_000L, 66, 1_000, null);
    }

    /** @return a copy with another window */
    public GoBackNConfig withWindowPackets(int packets) {
        return new GoBackNConfig(packets, rtoNs, dupAckThreshold, lineRateBitsPerSecond, wireOverheadBytes,
                burstNs, dcqcn);
    }

    /** @return a copy with another timeout */
    public GoBackNConfig withRtoNs(long ns) {
        return new GoBackNConfig(windowPackets, ns, dupAckThreshold, lineRateBitsPerSecond, wireOverheadBytes,
                burstNs, dcqcn);
    }

    /** @return a copy paced at another rate (0: unpaced) */
    public GoBackNConfig withLineRate(long bitsPerSecond, int overheadBytes) {
        return new GoBackNConfig(windowPackets, rtoNs, dupAckThreshold, bitsPerSecond, overheadBytes, burstNs,
                dcqcn);
    }

    /** @return a copy with DCQCN rate control (null: none) */
    public GoBackNConfig withDcqcn(DcqcnConfig config) {
        return new GoBackNConfig(windowPackets, rtoNs, dupAckThreshold, lineRateBitsPerSecond, wireOverheadBytes,
                burstNs, config);
    }
}
