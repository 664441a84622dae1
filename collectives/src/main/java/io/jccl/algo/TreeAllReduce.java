package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

/**
 * Double binary tree all-reduce: each of two complementary trees carries half of the data, reduced up to
 * its root and broadcast back down, pipelined in chunks. Events are walked in the order
 * {@code up(tree, k)} for piece k, then {@code down(tree, k - LAG)}, so the broadcast of a piece overlaps the
 * reduction of later ones while every rank keeps the same event order.
 */
public final class TreeAllReduce {
    /** How many pieces the reduction runs ahead of the broadcast. */
    static final int LAG = 8;

    private TreeAllReduce() {
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
        BinaryTree[] trees = {BinaryTree.of(n, r, 0), BinaryTree.of(n, r, 1)};
        long half = count / 2;
        long[] start = {0, half};
        long[] length = {half, count - half};
        long chunk = p.chunkElements();
        long[] pieces = {length[0] == 0 ? 0 : Ranges.pieces(length[0], chunk), Ranges.pieces(length[1], chunk)};
        long maxPieces = Math.max(pieces[0], pieces[1]);
        long lag = Math.min(LAG, maxPieces);
        for (long k = 0; k < maxPieces + lag; k++) {
            for (int t = 0; t < 2; t++) {
                if (k < pieces[t]) {
                    up(p, trees[t], start[t] + k * chunk, Math.min(chunk, length[t] - k * chunk));
                }
            }
            long kd = k - lag;
            for (int t = 0; t < 2 && kd >= 0; t++) {
                if (kd < pieces[t]) {
                    down(p, trees[t], start[t] + kd * chunk, Math.min(chunk, length[t] - kd * chunk));
                }
            }
        }
    }

    private static void up(Prims p, BinaryTree tree, long start, long len) {
        if (tree.child0() < 0) {
            p.sendContribution(tree.parent(), Buf.SEND, start, len);
        } else if (tree.parent() < 0) {
            p.recvReduceCopySend(tree.child0(), tree.child1(), Buf.SEND, start, true, Buf.RECV, start, len, true,
                    Prims.NO_PEER, Prims.NO_PEER);
        } else {
            p.recvReduceCopySend(tree.child0(), tree.child1(), Buf.SEND, start, true, Buf.NONE, 0, len, false,
                    tree.parent(), Prims.NO_PEER);
        }
    }

    private static void down(Prims p, BinaryTree tree, long start, long len) {
        if (tree.parent() < 0) {
            p.send(tree.child0(), Buf.RECV, start, len);
            if (tree.child1() >= 0) {
                p.send(tree.child1(), Buf.RECV, start, len);
            }
        } else {
            p.recvCopySend(tree.parent(), Buf.RECV, start, len, tree.child0(), tree.child1());
        }
    }
}
