package io.jccl.reduce;

import java.lang.foreign.MemorySegment;

/**
 * The loops one reducer runs, resolved once for its (type, operation, rank count).
 *
 * <p>Without a prepare step {@code combineLocal == combine}; without a finish step the fused variants equal the
 * plain ones and {@code prepare}/{@code finish} copy. No operation needs both steps, so
 * {@code combineLocal} with finish requested is {@code combineFinish} (AVG) or {@code combineLocal} (pre-mul-sum).
 *
 * @param combine {@code a ⊕ b}
 * @param combineFinish {@code finish(a ⊕ b)}
 * @param combineLocal {@code partial ⊕ prepare(local)}
 * @param combineLocalFinish {@code finish(partial ⊕ prepare(local))}
 * @param prepare {@code prepare(src)}
 * @param finish {@code finish(src)}
 */
record Loops(BinaryLoop combine, BinaryLoop combineFinish, BinaryLoop combineLocal, BinaryLoop combineLocalFinish,
             UnaryLoop prepare, UnaryLoop finish) {

    /**
     * Loops for an operation with neither a prepare nor a finish step.
     *
     * @param combine the combining loop
     * @param sizeBytes element size, for the copying prepare/finish
     * @return the loops
     */
    static Loops plain(BinaryLoop combine, int sizeBytes) {
        UnaryLoop copy = copy(sizeBytes);
        return new Loops(combine, combine, combine, combine, copy, copy);
    }

    /**
     * Loops for an operation with a finish step (AVG over several ranks).
     *
     * @param combine the combining loop
     * @param combineFinish combine and finish in one pass
     * @param finish the finishing loop
     * @param sizeBytes element size, for the copying prepare
     * @return the loops
     */
    static Loops withFinish(BinaryLoop combine, BinaryLoop combineFinish, UnaryLoop finish, int sizeBytes) {
        return new Loops(combine, combineFinish, combine, combineFinish, copy(sizeBytes), finish);
    }

    /**
     * Loops for an operation with a prepare step (pre-mul-sum with a scalar other than 1).
     *
     * @param combine the combining loop
     * @param combineLocal prepare the local input and combine in one pass
     * @param prepare the preparing loop
     * @param sizeBytes element size, for the copying finish
     * @return the loops
     */
    static Loops withPrepare(BinaryLoop combine, BinaryLoop combineLocal, UnaryLoop prepare, int sizeBytes) {
        return new Loops(combine, combine, combineLocal, combineLocal, prepare, copy(sizeBytes));
    }

    private static UnaryLoop copy(int sizeBytes) {
        return (src, srcOffset, dst, dstOffset, count) ->
                MemorySegment.copy(src, srcOffset, dst, dstOffset, count * sizeBytes);
    }
}
