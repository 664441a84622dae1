package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

/**
 * Pipelined reduce along the ring, starting after the root and ending at it. Every rank first exchanges the
 * {@link Token} with its ring neighbours, so a rank that disagrees about the root is caught; the rank after the
 * root, which receives no data, takes the token in a lane of its own so that its sends do not wait for it.
 */
public final class ChainReduce {
    private ChainReduce() {
    }

    /**
     * @param p     primitives
     * @param count elements
     * @param root  the rank that receives the result
     */
    public static void build(Prims p, long count, int root) {
        int n = p.size();
        int r = p.rank();
        if (n == 1) {
            p.copy(Buf.SEND, 0, Buf.RECV, 0, count, true, true);
            return;
        }
        int position = Math.floorMod(r - root, n);
        int next = Ranges.next(p);
        int prev = Ranges.prev(p);
        boolean receivesData = position != 1;
        Token.sendNext(p);
        if (receivesData) {
            Token.recvPrev(p);   // before the data from the same rank
        }
        long chunk = p.chunkElements();
        for (long off = 0; off < count; off += chunk) {
            long len = Math.min(chunk, count - off);
            if (position == 1) {
                p.sendContribution(next, Buf.SEND, off, len);
            } else if (position == 0) {
                p.recvReduceCopySend(prev, Prims.NO_PEER, Buf.SEND, off, true, Buf.RECV, off, len, true,
                        Prims.NO_PEER, Prims.NO_PEER);
            } else {
                p.recvReduceSend(prev, Buf.SEND, off, len, next);
            }
        }
        if (!receivesData) {
            p.newLane();
            Token.recvPrev(p);
        }
    }
}
