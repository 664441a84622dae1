package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

/**
 * The plans the algorithms make alike where nothing needs exchanging: a communicator of one rank, or no elements.
 * Each method plans such a case and says whether it did; the caller ({@link Algorithms}) then plans nothing more.
 */
final class EdgeCases {
    private EdgeCases() {
    }

    /**
     * A reduction (all-reduce, reduce-scatter) on one rank copies its input as the result (prepared and finished,
     * as a reduction of one contribution); one of no elements sends the {@link Token} around the ring, so that a
     * rank whose count differs is caught.
     *
     * @param count elements per rank
     * @return whether the case was one of these and is planned
     */
    static boolean reduction(Prims p, long count) {
        if (p.size() == 1) {
            p.copy(Buf.SEND, 0, Buf.RECV, 0, count, true, true);
            return true;
        }
        if (count == 0) {
            Token.ring(p);
            return true;
        }
        return false;
    }

    /**
     * A rooted copy (broadcast, gather, scatter) on one rank copies its send to its recv unless they are the same.
     *
     * @param count   elements
     * @param inPlace the send is the recv
     * @return whether the communicator has one rank and the case is planned
     */
    static boolean singleRankCopy(Prims p, long count, boolean inPlace) {
        if (p.size() != 1) {
            return false;
        }
        if (!inPlace) {
            p.copy(Buf.SEND, 0, Buf.RECV, 0, count, false, false);
        }
        return true;
    }
}
