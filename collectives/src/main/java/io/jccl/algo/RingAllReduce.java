package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

import static io.jccl.algo.Ranges.alignElements;
import static io.jccl.algo.Ranges.ceilDiv;
import static io.jccl.algo.Ranges.mod;
import static io.jccl.algo.Ranges.roundUp;

/**
 * Ring all-reduce: a reduce-scatter followed by an all-gather around the ring, over the data in loops of
 * {@code size} blocks of at most one chunk each, so consecutive loops pipeline. Block {@code c} of a loop is
 * reduced starting at rank {@code c+1} and finished at rank {@code c}, which then starts it around the ring.
 */
public final class RingAllReduce {
    private RingAllReduce() {
    }

    /**
     * Plans two or more ranks and a positive count; {@link Algorithms} plans the other cases alike for every
     * reduction.
     *
     * @param p     primitives
     * @param count elements
     */
    public static void build(Prims p, long count) {
        int n = p.size();
        int r = p.rank();
        int next = Ranges.next(p);
        int prev = Ranges.prev(p);
        long chunk = p.chunkElements();
        long loopSize = chunk * n;
        long align = alignElements(p.elementBytes());
        for (long base = 0; base < count; base += loopSize) {
            long block = Math.min(chunk, roundUp(ceilDiv(count - base, n), align));
            // Reduce-scatter.
            sendContribution(p, next, base, block, count, mod(r - 1, n));
            for (int j = 2; j < n; j++) {
                long start = base + mod(r - j, n) * block;
                long len = length(start, block, count);
                if (len > 0) {
                    p.recvReduceSend(prev, Buf.SEND, start, len, next);
                }
            }
            long start = base + (long) r * block;
            long len = length(start, block, count);
            if (len > 0) {
                p.recvReduceCopySend(prev, Prims.NO_PEER, Buf.SEND, start, true, Buf.RECV, start, len, true, next,
                        Prims.NO_PEER);
            }
            // All-gather.
            for (int j = 1; j < n - 1; j++) {
                long s = base + mod(r - j, n) * block;
                long l = length(s, block, count);
                if (l > 0) {
                    p.recvCopySend(prev, Buf.RECV, s, l, next, Prims.NO_PEER);
                }
            }
            long s = base + mod(r + 1, n) * block;
            long l = length(s, block, count);
            if (l > 0) {
                p.recv(prev, Buf.RECV, s, l);
            }
        }
    }

    private static void sendContribution(Prims p, int next, long base, long block, long count, int c) {
        long start = base + c * block;
        long len = length(start, block, count);
        if (len > 0) {
            p.sendContribution(next, Buf.SEND, start, len);
        }
    }

    static long length(long start, long block, long count) {
        return Math.max(0, Math.min(block, count - start));
    }
}
