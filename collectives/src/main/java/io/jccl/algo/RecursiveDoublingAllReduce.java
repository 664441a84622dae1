package io.jccl.algo;

import io.jccl.plan.Buf;
import io.jccl.prims.Prims;

/**
 * Recursive doubling all-reduce: log2(p) rounds in which partners exchange their whole partial and combine,
 * where p is the largest power of two not above n. The first {@code 2 * (n - p)} ranks pair up first (even
 * ranks hand their input to the odd rank after them and get the result back at the end). Latency-optimal for
 * small messages; every rank computes the same result because partners combine the same two operands.
 */
public final class RecursiveDoublingAllReduce {
    private RecursiveDoublingAllReduce() {
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
        int pow = Integer.highestOneBit(n);
        int extra = n - pow;
        boolean folded = r < 2 * extra && r % 2 == 0;
        long chunk = p.chunkElements();
        for (long start = 0; start < count; start += chunk) {
            long len = Math.min(chunk, count - start);
            if (extra == 0) {
                // Every rank is in the core: the first exchange reads the input itself (no copy into the output
                // first), later ones combine in the output.
                int core = r;
                for (int mask = 1; mask < pow; mask <<= 1) {
                    int partner = core ^ mask;
                    if (mask == 1) {
                        p.exchangeReduce(partner, Buf.SEND, start, true, Buf.RECV, start, len);
                    } else {
                        p.exchangeReduce(partner, Buf.RECV, start, len);
                    }
                }
                p.copy(Buf.RECV, start, Buf.RECV, start, len, false, true);
                continue;
            }
            p.copy(Buf.SEND, start, Buf.RECV, start, len, true, false);
            if (folded) {
                p.send(r + 1, Buf.RECV, start, len);
                p.recv(r + 1, Buf.RECV, start, len);
                continue;
            }
            if (r < 2 * extra) {
                p.recvReduceCopySend(r - 1, Prims.NO_PEER, Buf.RECV, start, false, Buf.RECV, start, len, false,
                        Prims.NO_PEER, Prims.NO_PEER);
            }
            int core = r < 2 * extra ? r / 2 : r - extra;
            for (int mask = 1; mask < pow; mask <<= 1) {
                int partnerCore = core ^ mask;
                int partner = partnerCore < extra ? 2 * partnerCore + 1 : partnerCore + extra;
                p.exchangeReduce(partner, Buf.RECV, start, len);
            }
            p.copy(Buf.RECV, start, Buf.RECV, start, len, false, true);
            if (r < 2 * extra) {
                p.send(r - 1, Buf.RECV, start, len);
            }
        }
    }
}
