package io.jccl.metaroce.fabric;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The counters of a relay ({@link ImpairmentRelay}, {@link ImpairmentProxy}), by index; written by the relay's
 * thread, readable from any thread. The names are stable: {@code jccl fabric} prints them and tests assert on them.
 */
public final class RelayCounters {
    /** Datagrams read from the relay's data sockets. */
    public static final int RECEIVED = 0;
    /** Datagrams sent on. */
    public static final int FORWARDED = 1;
    /** Dropped by random or bursty loss. */
    public static final int DROPPED_LOSS = 2;
    /** Dropped by a black hole. */
    public static final int DROPPED_BLACK_HOLE = 3;
    /** Sent with one bit flipped. */
    public static final int CORRUPTED = 4;
    /** Sent twice. */
    public static final int DUPLICATED = 5;
    /** Held back. */
    public static final int REORDERED = 6;
    /** The kernel refused to send (buffer full). */
    public static final int SEND_REFUSED = 7;
    /** Dropped while a flapping path was down. */
    public static final int DROPPED_FLAP = 8;
    /** Dropped at the tail of a full rate-limit queue. */
    public static final int DROPPED_QUEUE_FULL = 9;
    /** Sent with ECN CE because the rate-limit queue held more than its threshold when it was enqueued. */
    public static final int ECN_MARKED = 10;
    /** Proxy: well-formed registration requests (retries included). */
    public static final int REGISTER_REQUESTS = 11;
    /** Proxy: control datagrams ignored as malformed (magic, version, type, length or address count). */
    public static final int BAD_REQUESTS = 12;
    /** Proxy: endpoints registered (a repeated registration counts once). */
    public static final int ENDPOINTS = 13;
    /** Proxy: flows opened (one per sender 5-tuple and front). */
    public static final int FLOWS_OPENED = 14;
    /** Proxy: flows forgotten after being idle. */
    public static final int FLOWS_EXPIRED = 15;
    /** Proxy: datagrams dropped because they would have opened a flow beyond the limit. */
    public static final int DROPPED_FLOW_LIMIT = 16;
    /** Proxy: registrations refused (endpoint limit, or no sockets left). */
    public static final int REGISTRATIONS_REFUSED = 17;

    private static final String[] NAMES = {"received", "forwarded", "dropped_loss", "dropped_black_hole",
        "corrupted", "duplicated", "reordered", "send_refused", "dropped_flap", "dropped_queue_full", "ecn_marked",
        "register_requests", "bad_requests", "endpoints", "flows_opened", "flows_expired", "dropped_flow_limit",
        "registrations_refused"};
    /** How many counters a two-endpoint relay has (the proxy has them all). */
    static final int DATA_COUNTERS = ECN_MARKED + 1;
    static final int ALL = NAMES.length;

    private final AtomicLongArray values = new AtomicLongArray(NAMES.length);
    private final int shown;

    /** @param shown how many counters, from the first, {@link #toString()} prints */
    RelayCounters(int shown) {
        this.shown = shown;
    }

    void increment(int index) {
        values.incrementAndGet(index);
    }

    /** @return one counter (see the constants) */
    public long get(int index) {
        return values.get(index);
    }

    /** @return the counter's stable name */
    public static String name(int index) {
        return NAMES[index];
    }

    /** @return this relay's counters, {@code name=value} separated by spaces */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < shown; i++) {
            sb.append(i == 0 ? "" : " ").append(NAMES[i]).append('=').append(values.get(i));
        }
        return sb.toString();
    }
}
