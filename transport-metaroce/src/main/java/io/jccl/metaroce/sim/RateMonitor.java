package io.jccl.metaroce.sim;

import io.jccl.config.Arguments;

import java.util.Arrays;

/**
 * Counts the datagram bytes each sender gets delivered to one destination, in time bins (what the destination's
 * port carried for it: retransmissions and duplicates included). Feed it to
 * {@link Fabric#observeDeliveries}; read it with {@link IncastAnalysis}.
 */
public final class RateMonitor implements DeliveryObserver {
    private final long destination;
    private final long[] sources;
    private final long binNs;
    private long[][] bins;
    private int binCount;
    private final long[] firstNs;

    /**
     * @param destination the node whose inbound traffic is measured
     * @param sources     the senders to follow (others are ignored)
     * @param binNs       bin width
     */
    public RateMonitor(long destination, long[] sources, long binNs) {
        Arguments.positive("binNs", binNs);
        if (sources.length == 0) {
            throw new IllegalArgumentException("no sources");
        }
        this.destination = destination;
        this.sources = sources.clone();
        this.binNs = binNs;
        this.bins = new long[sources.length][1024];
        this.firstNs = new long[sources.length];
        Arrays.fill(firstNs, -1);
    }

    @Override
    public void delivered(long nowNs, long source, long dst, int pathIndex, int length) {
        if (dst != destination) {
            return;
        }
        int s = -1;
        for (int i = 0; i < sources.length; i++) {
            if (sources[i] == source) {
                s = i;
                break;
            }
        }
        if (s < 0) {
            return;
        }
        long b = nowNs / binNs;
        if (b >= Integer.MAX_VALUE - 1) {
            return;
        }
        int bin = (int) b;
        if (bin >= bins[s].length) {
            int n = Math.max(bin + 1, bins[s].length * 2);
            for (int i = 0; i < bins.length; i++) {
                bins[i] = Arrays.copyOf(bins[i], n);
            }
        }
        bins[s][bin] += length;
        binCount = Math.max(binCount, bin + 1);
        if (firstNs[s] < 0) {
            firstNs[s] = nowNs;
        }
    }

    /** @return the number of senders followed */
    public int senders() {
        return sources.length;
    }

    /** @return the bin width */
    public long binNs() {
        return binNs;
    }

    /** @return bins seen so far (up to the last one with a delivery) */
    public int bins() {
        return binCount;
    }

    /** @return bytes delivered from sender index {@code s} in bin {@code bin} */
    public long bytes(int s, int bin) {
        return bin < bins[s].length ? bins[s][bin] : 0;
    }

    /** @return when sender index {@code s} first got a datagram delivered, or -1 */
    public long firstDeliveryNs(int s) {
        return firstNs[s];
    }
}
