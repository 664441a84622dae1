package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

import static io.jccl.algo.Ranges.mod;

/** Ring reduce-scatter: block {@code c} is reduced along the ring starting at rank c+1 and ends at rank c. */
public final class RingReduceScatter {
    private RingReduceScatter() {
    }

    /**
     * @param p         primitives
     * @param recvCount elements per rank
     */
    public static void build(Prims p, long recvCount) {
        int n = p.size();
        int r = p.rank();
        if (EdgeCases.reduction(p, recvCount)) {
            return;
        }
        int next = (r + 1) % n;
        int prev = (r - 1 + n) % n;
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
