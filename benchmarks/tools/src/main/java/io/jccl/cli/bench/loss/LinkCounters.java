package io.jccl.cli.bench.loss;

/**
 * What an impairing link counted, both directions together; -1 where a link does not count something.
 *
 * @param forwardedPackets packets (datagrams) it passed on
 * @param droppedPackets   packets it dropped on purpose: the random loss
 * @param overflowPackets  packets lost because the link could not keep up (a full queue towards it, a write the
 *                         receiving kernel refused): loss the benchmark did not ask for, which a transport meets as
 *                         congestion
 */
public record LinkCounters(long forwardedPackets, long droppedPackets, long overflowPackets) {
    /** Counters of a link that counts nothing. */
    public static final LinkCounters UNKNOWN = new LinkCounters(-1, -1, -1);

    /**
     * @param before counters read earlier from the same link
     * @return what was counted since {@code before} (unknown stays unknown)
     */
    public LinkCounters since(LinkCounters before) {
        return new LinkCounters(delta(forwardedPackets, before.forwardedPackets),
                delta(droppedPackets, before.droppedPackets), delta(overflowPackets, before.overflowPackets));
    }

    private static long delta(long now, long then) {
        return now < 0 || then < 0 ? -1 : now - then;
    }
}
