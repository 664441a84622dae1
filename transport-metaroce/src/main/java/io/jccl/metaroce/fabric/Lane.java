package io.jccl.metaroce.fabric;

import java.net.InetSocketAddress;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One direction of one path (of one flow, in proxy mode): where its datagrams leave from and go to, its random
 * stream and bursty-loss state, and its rate-limit queue. Used only on the relay's thread.
 */
final class Lane {
    final int path;
    final Port out;
    final SplittableRandom random;
    final PacedQueue queue;   // null: no rate limit
    private final AtomicReferenceArray<InetSocketAddress> targets;
    private final int targetIndex;
    boolean burstBad;
    boolean pacing;           // listed in the forwarder's lanes with a non-empty queue
    boolean closed;

    /**
     * @param path        the path index (flaps and black holes are by path)
     * @param out         the socket it sends from
     * @param targets     where it sends: {@code targets[targetIndex]}, read when each datagram leaves (so a learned
     *                    re-route is followed)
     * @param random      its own random stream
     * @param rateLimit   its bottleneck, or {@link RateLimit#NONE}
     */
    Lane(int path, Port out, AtomicReferenceArray<InetSocketAddress> targets, int targetIndex,
         SplittableRandom random, RateLimit rateLimit) {
        this.path = path;
        this.out = out;
        this.targets = targets;
        this.targetIndex = targetIndex;
        this.random = random;
        this.queue = rateLimit.isNone() ? null : new PacedQueue(rateLimit);
    }

    InetSocketAddress destination() {
        return targets.get(targetIndex);
    }
}
