package io.jccl.plan;

/**
 * What a plan depends on, apart from the rank layout and element size: the operation and its counts.
 *
 * @param kind       the operation
 * @param count      elements (per rank for all-gather/gather, per block for reduce-scatter/scatter/all-to-all)
 * @param root       root rank, or -1
 * @param peer       peer rank for send/recv, or -1
 * @param p2pSend    true for send, false for recv
 * @param inPlace    send lies at its in-place position in recv
 * @param sendCounts all-to-allv send counts (elements), or null
 * @param sendDispls all-to-allv send displacements (elements), or null
 * @param recvCounts all-to-allv receive counts (elements), or null
 * @param recvDispls all-to-allv receive displacements (elements), or null
 */
public record OpShape(OpKind kind, long count, int root, int peer, boolean p2pSend, boolean inPlace,
                      long[] sendCounts, long[] sendDispls, long[] recvCounts, long[] recvDispls) {

    /**
     * @param kind    the collective
     * @param count   elements
     * @param root    root or -1
     * @param inPlace whether it runs in place
     * @return the shape of a collective without per-peer counts
     */
    public static OpShape collective(OpKind kind, long count, int root, boolean inPlace) {
        return new OpShape(kind, count, root, -1, false, inPlace, null, null, null, null);
    }
}
