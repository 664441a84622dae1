package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

/**
 * Gather and scatter straight between the root and each rank; the root handles all peers at once. Every rank
 * also exchanges the {@link Token} with its ring neighbours first, so a rank that disagrees about the root is
 * caught rather than left waiting for data nobody sends.
 */
public final class DirectGatherScatter {
    private DirectGatherScatter() {
    }

    /**
     * Plans two or more ranks; {@link Algorithms} plans a single rank's copy alike for every rooted copy.
     *
     * @param p       primitives
     * @param count   elements per rank
     * @param root    the receiving rank
     * @param inPlace the root's send is block {@code root} of its recv
     */
    public static void gather(Prims p, long count, int root, boolean inPlace) {
        int n = p.size();
        int r = p.rank();
        int prev = Ranges.prev(p);
        Token.sendNext(p);
        if (r != root) {
            p.send(root, Buf.SEND, 0, count);
            p.newLane();
            Token.recvPrev(p);
            return;
        }
        for (int j = 0; j < n; j++) {
            if (j != root) {
                p.newLane();
                if (j == prev) {
                    Token.recvPrev(p);   // before the data from the same rank
                    if (!inPlace) {
                        p.copy(Buf.SEND, 0, Buf.RECV, (long) root * count, count, false, false);
                    }
                }
                p.recv(j, Buf.RECV, (long) j * count, count);
            }
        }
    }

    /**
     * Plans two or more ranks; {@link Algorithms} plans a single rank's copy alike for every rooted copy.
     *
     * @param p       primitives
     * @param count   elements per rank
     * @param root    the sending rank
     * @param inPlace the root's recv is block {@code root} of its send
     */
    public static void scatter(Prims p, long count, int root, boolean inPlace) {
        int n = p.size();
        int r = p.rank();
        int prev = Ranges.prev(p);
        Token.sendNext(p);
        if (r != root) {
            if (prev == root) {
                Token.recvPrev(p);   // before the data from the same rank
                p.recv(root, Buf.RECV, 0, count);
            } else {
                p.recv(root, Buf.RECV, 0, count);
                p.newLane();
                Token.recvPrev(p);
            }
            return;
        }
        for (int j = 0; j < n; j++) {
            if (j != root) {
                p.send(j, Buf.SEND, (long) j * count, count);
            }
        }
        p.newLane();
        Token.recvPrev(p);
        if (!inPlace) {
            p.copy(Buf.SEND, (long) root * count, Buf.RECV, 0, count, false, false);
        }
    }
}
