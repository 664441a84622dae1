package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

/** Pipelined broadcast along the ring starting at the root: every rank forwards each piece as it arrives. */
public final class ChainBroadcast {
    private ChainBroadcast() {
    }

    /**
     * @param p       primitives
     * @param count   elements
     * @param root    the rank with the data
     * @param inPlace the root's send is its recv
     */
    public static void build(Prims p, long count, int root, boolean inPlace) {
        int n = p.size();
        int r = p.rank();
        if (r == root && !inPlace) {
            p.copy(Buf.SEND, 0, Buf.RECV, 0, count, false, false);
        }
        if (n == 1) {
            return;
        }
        if (count == 0) {
            Token.ring(p);
            return;
        }
        int position = Math.floorMod(r - root, n);
        int next = position == n - 1 ? Prims.NO_PEER : (r + 1) % n;
        int prev = (r - 1 + n) % n;
        long chunk = p.chunkElements();
        for (long off = 0; off < count; off += chunk) {
            long len = Math.min(chunk, count - off);
            if (r == root) {
                p.send(next, Buf.SEND, off, len);
            } else if (next >= 0) {
                p.recvCopySend(prev, Buf.RECV, off, len, next, Prims.NO_PEER);
            } else {
                p.recv(prev, Buf.RECV, off, len);
            }
        }
    }
}
