package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

import static io.jccl.algo.Ranges.mod;

/** Ring reduce-scatter: block {@code c} is reduced along the ring starting at rank c+1 and ends at rank c. */
public final class RingReduceScatter {
    private RingReduceScatter() {
    }

    /**
     * Plans two or more ranks and a positive count; {@link Algorithms} plans the other cases alike for every
     * reduction.
     *
     * @param p         primitives
     * @param recvCount elements per rank
     */
    public static void build(Prims p, long recvCount) {
        int n = p.size();
        int r = p.rank();
        int next = Ranges.next(p);
        int prev = Ranges.prev(p);
        long chunk = p.chunkElements();
        for (long off = 0; off < recvCount; off += chunk) {
            long len = Math.min(chunk, recvCount - off);
            p.sendContribution(next, Buf.SEND, mod(r - 1, n) * recvCount + off, len);
            for (int j = 2; j < n; j++) {
                p.recvReduceSend(prev, Buf.SEND, mod(r - j, n) * recvCount + off, len, next);
            }
            p.recvReduceCopySend(prev, Prims.NO_PEER, Buf.SEND, (long) r * recvCount + off, true, Buf.RECV, off, len,
                    true, Prims.NO_PEER, Prims.NO_PEER);
        }
    }
}
