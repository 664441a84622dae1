package io.jccl.metaroce.impair;

import io.jccl.config.Arguments;

/**
 * What a route does to the packets crossing it, beyond queueing; every draw comes from the route's own seeded
 * random stream, so a route's fate does not depend on traffic elsewhere. Applied in this order when a packet
 * reaches the route: random loss, bursty loss, then (if it survives the queue) corruption, duplication, jitter and
 * reordering.
 *
 * <ul>
 *   <li><b>Random loss</b>: each packet is dropped with probability {@code lossRate}.</li>
 *   <li><b>Bursty loss</b> (Gilbert–Elliott): the route is in a good or a bad state; before each packet it moves
 *       good→bad with probability {@code burstGoodToBad} and bad→good with {@code burstBadToGood}; in the bad
 *       state a packet is dropped with probability {@code burstLossInBad}. The long-run loss is
 *       {@code burstLossInBad * g2b / (g2b + b2g)}, in bursts of mean length {@code 1 / b2g} packets when
 *       {@code burstLossInBad} is 1.</li>
 *   <li><b>Corruption</b>: with probability {@code corruptRate} one random bit of the datagram is flipped (the
 *       receiver's CRC must catch it).</li>
 *   <li><b>Duplication</b>: with probability {@code duplicateRate} a copy is delivered right after the
 *       packet.</li>
 *   <li><b>Jitter</b>: a uniform extra delay in {@code [0, jitterNs]} after the queue (it may reorder).</li>
 *   <li><b>Reordering</b>: with probability {@code reorderRate} the packet is held back until
 *       {@code reorderDepthPackets} later packets of the same route have gone ahead of it, so it arrives after at
 *       least that many later ones; if the route goes quiet it is released after {@code reorderMaxHoldNs}.</li>
 * </ul>
 *
 * @param lossRate            random loss probability, 0-1
 * @param burstGoodToBad      Gilbert–Elliott probability of entering the bad state, per packet
 * @param burstBadToGood      probability of leaving it, per packet
 * @param burstLossInBad      loss probability in the bad state
 * @param corruptRate         probability of a flipped bit
 * @param duplicateRate       probability of a duplicate
 * @param jitterNs            largest extra delay
 * @param reorderRate         probability of being held back
 * @param reorderDepthPackets later packets that overtake a held one (at least 1)
 * @param reorderMaxHoldNs    longest hold when no later packets come
 */
public record Impairments(double lossRate, double burstGoodToBad, double burstBadToGood, double burstLossInBad,
                          double corruptRate, double duplicateRate, long jitterNs, double reorderRate,
                          int reorderDepthPackets, long reorderMaxHoldNs) {
    /** No impairment at all. */
    public static final Impairments NONE = new Impairments(0, 0, 1, 0, 0, 0, 0, 0, 10, 100_000);

    /** Checks every value. */
    public Impairments {
        probability("lossRate", lossRate);
        probability("burstGoodToBad", burstGoodToBad);
        probability("burstBadToGood", burstBadToGood);
        probability("burstLossInBad", burstLossInBad);
        probability("corruptRate", corruptRate);
        probability("duplicateRate", duplicateRate);
        probability("reorderRate", reorderRate);
        if (burstGoodToBad > 0 && burstBadToGood == 0) {
            throw new IllegalArgumentException("burstBadToGood must be > 0 when burstGoodToBad > 0 (else the route "
                    + "stays bad for ever)");
        }
        Arguments.atLeast("jitterNs", jitterNs, 0);
        Arguments.inRange("reorderDepthPackets", reorderDepthPackets, 1, 1024);
        Arguments.positive("reorderMaxHoldNs", reorderMaxHoldNs);
    }

    private static void probability(String name, double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException(name + "=" + p + " must be a probability in [0, 1]");
        }
    }

    /** @return true when this changes nothing */
    public boolean isNone() {
        return lossRate == 0 && (burstGoodToBad == 0 || burstLossInBad == 0) && corruptRate == 0
                && duplicateRate == 0 && jitterNs == 0 && reorderRate == 0;
    }

    /** @return the long-run fraction of packets lost to the Gilbert–Elliott model */
    public double burstLossRate() {
        return burstGoodToBad == 0 ? 0 : burstLossInBad * burstGoodToBad / (burstGoodToBad + burstBadToGood);
    }

    /** @return a copy with another random loss */
    public Impairments withLossRate(double p) {
        return new Impairments(p, burstGoodToBad, burstBadToGood, burstLossInBad, corruptRate, duplicateRate,
                jitterNs, reorderRate, reorderDepthPackets, reorderMaxHoldNs);
    }

    /** @return a copy with Gilbert–Elliott bursty loss */
    public Impairments withBurstLoss(double goodToBad, double badToGood, double lossInBad) {
        return new Impairments(lossRate, goodToBad, badToGood, lossInBad, corruptRate, duplicateRate, jitterNs,
                reorderRate, reorderDepthPackets, reorderMaxHoldNs);
    }

    /** @return a copy with another corruption rate */
    public Impairments withCorruptRate(double p) {
        return new Impairments(lossRate, burstGoodToBad, burstBadToGood, burstLossInBad, p, duplicateRate, jitterNs,
                reorderRate, reorderDepthPackets, reorderMaxHoldNs);
    }

    /** @return a copy with another duplication rate */
    public Impairments withDuplicateRate(double p) {
        return new Impairments(lossRate, burstGoodToBad, burstBadToGood, burstLossInBad, corruptRate, p, jitterNs,
                reorderRate, reorderDepthPackets, reorderMaxHoldNs);
    }

    /** @return a copy with another jitter */
    public Impairments withJitterNs(long ns) {
        return new Impairments(lossRate, burstGoodToBad, burstBadToGood, burstLossInBad, corruptRate, duplicateRate,
                ns, reorderRate, reorderDepthPackets, reorderMaxHoldNs);
    }

    /** @return a copy with reordering */
    public Impairments withReorder(double rate, int depthPackets, long maxHoldNs) {
        return new Impairments(lossRate, burstGoodToBad, burstBadToGood, burstLossInBad, corruptRate, duplicateRate,
                jitterNs, rate, depthPackets, maxHoldNs);
    }
}
