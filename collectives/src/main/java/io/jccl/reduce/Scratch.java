package io.jccl.reduce;

/**
 * Per-thread float scratch for the staged 16- and 8-bit float kernels: two blocks of {@link #BLOCK} floats (8 KiB),
 * allocated on a thread's first call and reused by every later one. Kernel calls do not nest, so one array per
 * thread serves all of them.
 */
final class Scratch {
    /** Elements per stage: a multiple of every vector lane count, and two blocks of floats fit in L1. */
    static final int BLOCK = 1024;

    private static final ThreadLocal<float[]> FLOATS = ThreadLocal.withInitial(() -> new float[2 * BLOCK]);

    private Scratch() {
    }

    /** @return this thread's scratch: two blocks, at index 0 and {@link #BLOCK} */
    static float[] floats() {
        return FLOATS.get();
    }
}
