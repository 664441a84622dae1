package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

/**
 * An empty message around the ring. It carries the operation's fingerprint like every message, so a rank
 * whose call differs from its ring neighbour's is caught by the receiver's tag check before any data moves.
 *
 * <p>Collectives with nothing to move send it so that a rank that called with count 0 while others did not
 * is caught instead of leaving them waiting. Rooted collectives (broadcast, reduce, gather, scatter) always
 * send it: without it, ranks that disagree about the root may exchange no message at all (both "roots" of a
 * broadcast only send), and would hang or finish without noticing.
 *
 * <p>Ordering rule: the token must be the first message on the connection to the next rank and the first
 * receive on the connection from the previous one. {@link #sendNext} therefore comes first in the plan;
 * {@link #recvPrev} comes before any other receive from the previous rank, in the same lane.
 */
final class Token {
    private Token() {
    }

    static void ring(Prims p) {
        if (p.size() == 1) {
            return;
        }
        sendNext(p);
        recvPrev(p);
    }

    /** Sends the token to rank+1; must be the first step that sends to it. */
    static void sendNext(Prims p) {
        p.send(Ranges.next(p), Buf.NONE, 0, 0);
    }

    /** Receives the token from rank-1; must precede, in the same lane, every other receive from it. */
    static void recvPrev(Prims p) {
        p.recv(Ranges.prev(p), Buf.NONE, 0, 0);
    }
}
