package io.jccl.cli.bench.loss.tun;

import java.util.SplittableRandom;

/**
 * The drop decision of one direction: one draw from a seeded generator per packet, dropped when below the loss
 * rate. The same seed and the same packet sequence give the same drops; the decision does not look at the packet.
 */
final class PacketLoss {
    private final double lossRate;
    private final SplittableRandom random;

    /**
     * @param lossRate share of packets to drop, in [0, 1]
     * @param random   this direction's generator, used by this object alone
     */
    PacketLoss(double lossRate, SplittableRandom random) {
        this.lossRate = lossRate;
        this.random = random;
    }

    /**
     * The two directions' decisions for one seed: independent streams split, in a fixed order, from one generator.
     *
     * @return index 0 for side 0 to side 1, index 1 for the way back
     */
    static PacketLoss[] forBothDirections(double lossRate, long seed) {
        SplittableRandom root = new SplittableRandom(seed);
        return new PacketLoss[]{new PacketLoss(lossRate, root.split()), new PacketLoss(lossRate, root.split())};
    }

    /** @return whether to drop the next packet; draws even at rate 0 or 1, so a packet's draw never shifts */
    boolean drop() {
        return random.nextDouble() < lossRate;
    }
}
