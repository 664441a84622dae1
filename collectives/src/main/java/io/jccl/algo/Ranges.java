package io.jccl.algo;

import io.jccl.prims.Prims;

/** Small index helpers shared by the algorithms. */
final class Ranges {
    private Ranges() {
    }

    /** @return the rank after this one around the ring */
    static int next(Prims p) {
        return (p.rank() + 1) % p.size();
    }

    /** @return the rank before this one around the ring */
    static int prev(Prims p) {
        return (p.rank() - 1 + p.size()) % p.size();
    }

    static int mod(long x, int n) {
        return (int) Math.floorMod(x, (long) n);
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    static long roundUp(long a, long multiple) {
        return ceilDiv(a, multiple) * multiple;
    }

    /** Elements per 64 bytes (at least 1): block sizes are kept multiples of it so kernels see aligned runs. */
    static long alignElements(int elementBytes) {
        return Math.max(1, 64 / elementBytes);
    }

    /** Number of pieces of at most {@code chunk} elements covering {@code count} (at least 1). */
    static long pieces(long count, long chunk) {
        return Math.max(1, ceilDiv(count, chunk));
    }
}
