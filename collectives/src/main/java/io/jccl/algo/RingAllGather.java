package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

import static io.jccl.algo.Ranges.mod;

/** Ring all-gather: each block travels n-1 hops around the ring, piece by piece. */
public final class RingAllGather {
    private RingAllGather() {
    }

    /**
     * @param p         primitives
     * @param sendCount elements per rank
     * @param inPlace   send is block {@code rank} of recv
     */
    public static void build(Prims p, long sendCount, boolean inPlace) {
        int n = p.size();
        int r = p.rank();
        if (!inPlace) {
            p.copy(Buf.SEND, 0, Buf.RECV, (long) r * sendCount, sendCount, false, false);
        }
        if (n == 1) {
            return;
        }
        if (sendCount == 0) {
            Token.ring(p);
            return;
        }
        int next = Ranges.next(p);
        int prev = Ranges.prev(p);
        long chunk = p.chunkElements();
        for (long off = 0; off < sendCount; off += chunk) {
            long len = Math.min(chunk, sendCount - off);
            p.send(next, Buf.SEND, off, len);
            for (int j = 1; j < n - 1; j++) {
                p.recvCopySend(prev, Buf.RECV, mod(r - j, n) * sendCount + off, len, next, Prims.NO_PEER);
            }
            p.recv(prev, Buf.RECV, mod(r - n + 1, n) * sendCount + off, len);
        }
    }
}
