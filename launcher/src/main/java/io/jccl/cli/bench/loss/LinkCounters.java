package io.jccl.cli.bench.loss;

/**
 * What an impairing link counted, both directions together.
 *
 * @param forwardedPackets packets (datagrams) it passed on, -1 when it does not count them
 * @param droppedPackets   packets it dropped on purpose (the random loss), -1 when it does not count them
 */
public record LinkCounters(long forwardedPackets, long droppedPackets) {
    /** Counters of a link that counts nothing. */
    public static final LinkCounters UNKNOWN = new LinkCounters(-1, -1);

    /**
     * @param before counters read earlier from the same link
     * @return what was counted since {@code before} (unknown stays unknown)
     */
    public LinkCounters since(LinkCounters before) {
        return new LinkCounters(delta(forwardedPackets, before.forwardedPackets),
                delta(droppedPackets, before.droppedPackets));
    }

    private static long delta(long now, long then) {
        return now < 0 || then < 0 ? -1 : now - then;
    }
}
