package io.jccl.metaroce.protocol.conn;

/**
 * Paces one connection's DATA to the rate its receiver grants (the rate hint in its ACKs): a token bucket refilled
 * at that rate, looked at once per emission. Unpaced until the first grant. An idle sender saves up at most a
 * short burst; one the pacer held back is owed what accrued until its next look (see {@link #beginEmission}).
 */
final class Pacer {
    /** Tokens an idle sender may save up, in payloads: the burst it may start with. */
    static final int BURST_PAYLOADS = 16;
    /** The most of its rate's time a sender held back by the pacer is owed at its next look. */
    static final long MAX_OWED_NS = 100_000;

    private final int payloadBytes;
    private double rateBytesPerSecond;
    private double tokens;
    private long tokensAtNs;
    private long dueNs = Long.MAX_VALUE;
    /** The last emission stopped for want of tokens: the sender had more to send than its rate let out. */
    private boolean limited;

    /**
     * @param payloadBytes the connection's payload per packet
     * @param nowNs        the clock
     */
    Pacer(int payloadBytes, long nowNs) {
        this.payloadBytes = payloadBytes;
        this.tokensAtNs = nowNs;
    }

    /** The connection (re)starts sending now: nothing accrued before counts. */
    void restart(long nowNs) {
        tokensAtNs = nowNs;
    }

    /** The receiver grants this rate (bytes per second, above 0). */
    void grant(double bytesPerSecond) {
        rateBytesPerSecond = bytesPerSecond;
    }

    /** @return the rate granted, 0 before any grant (unpaced) */
    double rateBytesPerSecond() {
        return rateBytesPerSecond;
    }

    /**
     * An emission starts: the bucket takes what accrued since the last look. An idle sender saves up at most
     * {@link #BURST_PAYLOADS}; one the pacer held back is owed all that accrued since (up to {@link #MAX_OWED_NS} of
     * its rate): a software sender looks again only a duty cycle later, tens of microseconds on a busy host, and
     * capping it at the burst would hold it below the rate it was granted (16 payloads of 4 KiB per 20 µs cycle is
     * 3.3 GB/s of a 12.5 GB/s grant).
     */
    void beginEmission(long nowNs) {
        if (rateBytesPerSecond <= 0) {
            tokensAtNs = nowNs;
        } else {
            long dt = nowNs - tokensAtNs;
            if (dt > 0) {
                double burst = BURST_PAYLOADS * (double) payloadBytes;
                double cap = limited ? Math.max(burst, rateBytesPerSecond * MAX_OWED_NS / 1e9) : burst;
                tokens = Math.min(cap, tokens + rateBytesPerSecond * dt / 1e9);
                tokensAtNs = nowNs;
            }
        }
        dueNs = Long.MAX_VALUE;
        limited = false;
    }

    /**
     * @return whether a payload may leave now; if not, the emission is pacer-limited and {@link #dueNs()} says when
     *         one may
     */
    boolean allows(long nowNs) {
        if (rateBytesPerSecond > 0 && tokens < payloadBytes) {
            dueNs = nowNs + (long) Math.ceil((payloadBytes - tokens) * 1e9 / rateBytesPerSecond);
            limited = true;
            return false;
        }
        return true;
    }

    /** A payload of that many bytes left. */
    void sent(int payload) {
        if (rateBytesPerSecond > 0) {
            tokens -= payload;
        }
    }

    /** @return when the emission the pacer stopped may go on ({@link Long#MAX_VALUE}: it did not stop one) */
    long dueNs() {
        return dueNs;
    }
}
