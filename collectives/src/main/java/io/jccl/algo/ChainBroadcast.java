package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

/**
 * Pipelined broadcast along the ring starting at the root: every rank forwards each piece as it arrives.
 * Every rank first exchanges the {@link Token} with its ring neighbours, so a rank that disagrees about the
 * root is caught; the root takes the token in a lane of its own, so its sends do not wait for it.
 */
public final class ChainBroadcast {
    private ChainBroadcast() {
    }

    /**
     * Plans two or more ranks; {@link Algorithms} plans a single rank's copy alike for every rooted copy.
     *
     * @param p       primitives
     * @param count   elements
     * @param root    the rank with the data
     * @param inPlace the root's send is its recv
     */
    public static void build(Prims p, long count, int root, boolean inPlace) {
        int n = p.size();
        int r = p.rank();
        Token.sendNext(p);
        int position = Math.floorMod(r - root, n);
        int next = position == n - 1 ? Prims.NO_PEER : Ranges.next(p);
        int prev = Ranges.prev(p);
        if (r != root) {
            Token.recvPrev(p);   // before the data from the same rank
        }
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
        if (r == root) {
            // The root receives nothing else from prev; its own copy waits until the neighbour is known to agree.
            p.newLane();
            Token.recvPrev(p);
            if (!inPlace) {
                p.copy(Buf.SEND, 0, Buf.RECV, 0, count, false, false);
            }
        }
    }
}
