package io.jccl.metaroce.sim.dc;

/**
 * The shape of a Clos fabric and its links.
 *
 * <p>Three tiers: {@code k} pods of {@code k/2} ToR and {@code k/2} aggregation switches, {@code (k/2)^2} core
 * switches, each ToR with {@code oversubscription * k/2} hosts: {@code oversubscription * k^3 / 4} host slots (1,024 at
 * k = 16, 3,456 at 24, 8,192 at 32). Two tiers: {@code k} leaves and {@code k/2} spines, {@code oversubscription * k^2 /
 * 2} slots. {@code planes} parallel copies of the switches; a host has one NIC port per plane. Hosts fill the slots in
 * order; {@code hosts} may leave the last ones empty.
 *
 * @param tiers              2 or 3
 * @param radix              k, the switches' port count towards the fabric (even, 2-254)
 * @param oversubscription   hosts per ToR uplink (1: full bisection)
 * @param planes             parallel planes (1-64)
 * @param hosts              hosts attached (1 to the slot count)
 * @param linkGbps           every link's rate, in Gbit/s
 * @param linkDelayNs        every link's propagation delay, in ns
 * @param queueBytes         each output port's buffer (tail drop beyond it)
 * @param ecnThresholdBytes  queue depth above which an arriving ECN-capable packet is marked (0: never)
 * @param lossProbability    random loss of each data packet (see {@code lossOnEveryLink})
 * @param lossOnEveryLink    false: the loss applies on the last link only (ToR to host), so the end-to-end loss rate
 *                           is {@code lossProbability}; true: on every link
 */
public record ClosConfig(int tiers, int radix, int oversubscription, int planes, int hosts, double linkGbps,
                         long linkDelayNs, long queueBytes, long ecnThresholdBytes, double lossProbability,
                         boolean lossOnEveryLink) {

    /** Default per-link propagation delay: 500 ns (about 100 m of fibre). */
    public static final long DEFAULT_LINK_DELAY_NS = 500;
    /** Default output buffer: 1 MiB per port. */
    public static final long DEFAULT_QUEUE_BYTES = 1 << 20;
    /** Default ECN threshold: 200 KiB. */
    public static final long DEFAULT_ECN_THRESHOLD_BYTES = 200 * 1024;

    /** Checks every field; the message names the one that is wrong. */
    public ClosConfig {
        if (tiers != 2 && tiers != 3) {
            throw new IllegalArgumentException("tiers must be 2 or 3, not " + tiers);
        }
        if (radix < 2 || radix > 254 || radix % 2 != 0) {
            throw new IllegalArgumentException("radix must be even and in 2-254, not " + radix);
        }
        if (oversubscription < 1 || oversubscription > 64) {
            throw new IllegalArgumentException("oversubscription must be in 1-64, not " + oversubscription);
        }
        if (planes < 1 || planes > 64) {
            throw new IllegalArgumentException("planes must be in 1-64, not " + planes);
        }
        long slots = slots(tiers, radix, oversubscription);
        if (hosts < 1 || hosts > slots) {
            throw new IllegalArgumentException("hosts must be in 1-" + slots + " for a " + tiers + "-tier fabric of radix "
                    + radix + " and oversubscription " + oversubscription + ", not " + hosts);
        }
        if (!(linkGbps > 0) || linkGbps > 100_000) {
            throw new IllegalArgumentException("link rate must be in (0, 100000] Gbit/s, not " + linkGbps);
        }
        if (8000.0 / linkGbps != Math.rint(8000.0 / linkGbps)) {
            throw new IllegalArgumentException("link rate " + linkGbps + " Gbit/s is not a whole number of picoseconds"
                    + " per byte (8000 / rate must be an integer: 100, 200, 400, 800, 1000, 1600 ...)");
        }
        if (linkDelayNs < 0 || linkDelayNs > 1_000_000_000L) {
            throw new IllegalArgumentException("link delay must be in 0-1e9 ns, not " + linkDelayNs);
        }
        if (queueBytes < 1 || queueBytes > (1L << 40)) {
            throw new IllegalArgumentException("queue must be 1 byte to 1 TiB, not " + queueBytes);
        }
        if (ecnThresholdBytes < 0 || ecnThresholdBytes > queueBytes) {
            throw new IllegalArgumentException("ECN threshold must be in 0-" + queueBytes + " bytes, not "
                    + ecnThresholdBytes);
        }
        if (!(lossProbability >= 0 && lossProbability < 1)) {
            throw new IllegalArgumentException("loss probability must be in [0, 1), not " + lossProbability);
        }
    }

    /** @return a full-bisection fabric of {@code tiers} and {@code radix}, every slot used, with default buffers */
    public static ClosConfig fatTree(int tiers, int radix, double linkGbps) {
        return new ClosConfig(tiers, radix, 1, 1, (int) slots(tiers, radix, 1), linkGbps, DEFAULT_LINK_DELAY_NS,
                DEFAULT_QUEUE_BYTES, DEFAULT_ECN_THRESHOLD_BYTES, 0, false);
    }

    /** @return the host slots of a fabric of this shape */
    public static long slots(int tiers, int radix, int oversubscription) {
        long half = radix / 2;
        return tiers == 3 ? oversubscription * half * radix * half : oversubscription * half * radix;
    }

    /** @return the smallest even radix whose full fabric of {@code tiers} has at least {@code hosts} slots */
    public static int radixFor(int tiers, int oversubscription, long hosts) {
        for (int k = 2; k <= 254; k += 2) {
            if (slots(tiers, k, oversubscription) >= hosts) {
                return k;
            }
        }
        throw new IllegalArgumentException(hosts + " hosts do not fit a " + tiers + "-tier fabric of radix 254");
    }

    /** @return a copy with {@code hosts} hosts */
    public ClosConfig withHosts(int n) {
        return new ClosConfig(tiers, radix, oversubscription, planes, n, linkGbps, linkDelayNs, queueBytes,
                ecnThresholdBytes, lossProbability, lossOnEveryLink);
    }

    /** @return a copy with {@code n} planes */
    public ClosConfig withPlanes(int n) {
        return new ClosConfig(tiers, radix, oversubscription, n, hosts, linkGbps, linkDelayNs, queueBytes,
                ecnThresholdBytes, lossProbability, lossOnEveryLink);
    }

    /** @return a copy with this random loss */
    public ClosConfig withLoss(double probability, boolean everyLink) {
        return new ClosConfig(tiers, radix, oversubscription, planes, hosts, linkGbps, linkDelayNs, queueBytes,
                ecnThresholdBytes, probability, everyLink);
    }

    /** @return a copy with these buffers */
    public ClosConfig withQueues(long bytes, long ecnBytes) {
        return new ClosConfig(tiers, radix, oversubscription, planes, hosts, linkGbps, linkDelayNs, bytes, ecnBytes,
                lossProbability, lossOnEveryLink);
    }

    /** @return a copy with this propagation delay per link */
    public ClosConfig withLinkDelayNs(long ns) {
        return new ClosConfig(tiers, radix, oversubscription, planes, hosts, linkGbps, ns, queueBytes,
                ecnThresholdBytes, lossProbability, lossOnEveryLink);
    }

    /** @return picoseconds one byte takes on a link */
    public long psPerByte() {
        return Math.round(8000.0 / linkGbps);
    }

    /** @return hosts under one ToR */
    public int hostsPerTor() {
        return oversubscription * radix / 2;
    }
}
