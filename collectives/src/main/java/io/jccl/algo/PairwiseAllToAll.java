package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

/**
 * Pairwise exchange: in step k every rank sends to rank+k and receives from rank-k, so each pair of ranks
 * talks in exactly one step and no rank is the target of two senders at once.
 */
public final class PairwiseAllToAll {
    private PairwiseAllToAll() {
    }

    /**
     * Equal blocks.
     *
     * @param p     primitives
     * @param count elements per block
     */
    public static void build(Prims p, long count) {
        int n = p.size();
        long[] counts = new long[n];
        long[] displs = new long[n];
        for (int i = 0; i < n; i++) {
            counts[i] = count;
            displs[i] = i * count;
        }
        build(p, counts, displs, counts, displs);
    }

    /**
     * Blocks with their own counts and displacements (elements).
     *
     * @param p          primitives
     * @param sendCounts elements to each rank
     * @param sendDispls where each rank's elements start in send
     * @param recvCounts elements from each rank
     * @param recvDispls where each rank's elements go in recv
     */
    public static void build(Prims p, long[] sendCounts, long[] sendDispls, long[] recvCounts, long[] recvDispls) {
        int n = p.size();
        int r = p.rank();
        p.copy(Buf.SEND, at(sendDispls, sendCounts, r), Buf.RECV, at(recvDispls, recvCounts, r), sendCounts[r], false,
                false);
        for (int k = 1; k < n; k++) {
            int to = (r + k) % n;
            int from = (r - k + n) % n;
            p.send(to, Buf.SEND, at(sendDispls, sendCounts, to), sendCounts[to]);
            p.recv(from, Buf.RECV, at(recvDispls, recvCounts, from), recvCounts[from]);
        }
    }

    /** The displacement of a block; 0 for an empty one, whose displacement the caller need not keep in range. */
    private static long at(long[] displs, long[] counts, int i) {
        return counts[i] == 0 ? 0 : displs[i];
    }
}
