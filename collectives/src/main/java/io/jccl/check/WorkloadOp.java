package io.jccl.check;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.plan.OpKind;

import java.util.Locale;
import java.util.Objects;

/**
 * One operation of a random {@link Workload}: what every rank calls at step {@code index}. The inputs are those of
 * {@link CollectiveCheck} with seed {@link Workload#opSeed(long, int) opSeed(workload seed, index)}.
 *
 * @param index   position in the workload, from 0
 * @param kind    the collective: any of {@link Workload#KINDS} ({@link OpKind#P2P} is the ring of send/recv that
 *                {@link CollectiveCheck} models: every rank sends to rank+1 and receives from rank-1 in one group)
 * @param type    element type (any, also for a barrier, which moves none)
 * @param op      reduction kind for all-reduce, reduce and reduce-scatter; null for the others
 * @param count   the API's count for the call (per rank for all-gather and gather, per block for reduce-scatter,
 *                scatter, all-to-all and all-to-allv; 0 for a barrier)
 * @param root    root rank of broadcast, reduce, gather and scatter; -1 for the others
 * @param inPlace whether the call uses the API's in-place layout (only collectives that have one)
 */
public record WorkloadOp(int index, OpKind kind, DataType type, ReduceOp.Kind op, long count, int root,
                         boolean inPlace) {
    /** Checks the fields fit together; each failure names the field and value. */
    public WorkloadOp {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(type, "type");
        if (index < 0) {
            throw new IllegalArgumentException("index must not be negative, got " + index);
        }
        if (!Workload.KINDS.contains(kind)) {
            throw new IllegalArgumentException("kind " + kind + " is not a workload operation; expected one of "
                    + Workload.KINDS);
        }
        if (CollectiveCalls.reducing(kind) != (op != null)) {
            throw new IllegalArgumentException(kind.apiName() + (op == null ? " needs a reduction" : " takes no "
                    + "reduction, got " + op));
        }
        if (count < 0 || (kind == OpKind.BARRIER && count != 0)) {
            throw new IllegalArgumentException("count " + count + " is not valid for " + kind.apiName());
        }
        if (CollectiveCalls.rooted(kind) ? root < 0 : root != -1) {
            throw new IllegalArgumentException("root " + root + " is not valid for " + kind.apiName()
                    + (CollectiveCalls.rooted(kind) ? " (a rank, 0 or more)" : " (-1: it has no root)"));
        }
        if (inPlace && !CollectiveCalls.hasInPlaceForm(kind)) {
            throw new IllegalArgumentException(kind.apiName() + " has no in-place form");
        }
    }

    /** @return e.g. {@code op 17: allReduce float32 sum count 1031 in-place} or {@code op 3: barrier} */
    public String describe() {
        StringBuilder b = new StringBuilder("op ").append(index).append(": ").append(kind.apiName());
        if (kind == OpKind.BARRIER) {
            return b.toString();
        }
        b.append(' ').append(type.name().toLowerCase(Locale.ROOT));
        if (op != null) {
            b.append(' ').append(op.name().toLowerCase(Locale.ROOT));
        }
        b.append(" count ").append(count);
        if (root >= 0) {
            b.append(" root ").append(root);
        }
        if (CollectiveCalls.hasInPlaceForm(kind)) {
            b.append(inPlace ? " in-place" : " out-of-place");
        }
        return b.toString();
    }
}
