package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

/** Dissemination barrier: in round k every rank signals rank+2^k and waits for rank-2^k; ceil(log2 n) rounds. */
public final class DisseminationBarrier {
    private DisseminationBarrier() {
    }

    /** @param p primitives */
    public static void build(Prims p) {
        int n = p.size();
        int r = p.rank();
        for (int k = 1; k < n; k <<= 1) {
            p.send((r + k) % n, Buf.NONE, 0, 0);
            p.recv((r - k + n) % n, Buf.NONE, 0, 0);
        }
    }
}
