package io.jccl.metaroce.protocol;

/**
 * The counters of one endpoint: plain longs, written by the single thread that drives the core and read
 * (racily, which is fine for monitoring) by anyone.
 */
public final class Counters {
    private final long[] counters = new long[Counter.values().length];
    private final long[] drops = new long[DropReason.values().length];
    private long totalDrops;   // kept as drops are counted: drivers read it per datagram

    /** Adds one. */
    public void increment(Counter c) {
        counters[c.ordinal()]++;
    }

    /** Adds {@code n}. */
    public void add(Counter c, long n) {
        counters[c.ordinal()] += n;
    }

    /** Counts a dropped datagram. */
    public void drop(DropReason reason) {
        drops[reason.ordinal()]++;
        totalDrops++;
    }

    /** @return the counter's value */
    public long get(Counter c) {
        return counters[c.ordinal()];
    }

    /** @return how many datagrams were dropped for that reason */
    public long drops(DropReason reason) {
        return drops[reason.ordinal()];
    }

    /** @return all drops */
    public long totalDrops() {
        return totalDrops;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Counter c : Counter.values()) {
            if (get(c) != 0) {
                sb.append(c.metricName()).append('=').append(get(c)).append('\n');
            }
        }
        for (DropReason r : DropReason.values()) {
            if (drops(r) != 0) {
                sb.append(r.metricName()).append('=').append(drops(r)).append('\n');
            }
        }
        return sb.toString();
    }
}
