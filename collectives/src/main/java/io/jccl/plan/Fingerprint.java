package io.jccl.plan;

import io.jccl.DataType;
import io.jccl.ReduceOp;

/**
 * The identity of a call as a 64-bit message tag: every message of an operation carries it and the receiver
 * compares it with its own, so ranks whose calls differ are caught before any data is written.
 *
 * <pre>
 *  63..60 kind   59..56 type   55..53 op   52..40 root (mod 8192)   39..32 call number (mod 256)   31..0 count
 * </pre>
 * The count field holds the count itself when it fits in 32 bits (otherwise its two halves XORed), so a
 * mismatch can usually be reported with the other rank's actual count.
 */
public final class Fingerprint {
    /** Tag of the connection hello messages. */
    public static final long HELLO_TAG = 0xF0F0_0000_0000_0001L;
    /** Tag of control messages. */
    public static final long CONTROL_TAG = 0xF0F0_0000_0000_0002L;
    /** The root field of a call that has no root (all 13 bits set). */
    private static final int NO_ROOT = 0x1FFF;

    private Fingerprint() {
    }

    /**
     * @param kind  the operation
     * @param seq   the call number on the communicator (collectives) or on the pair (send/recv)
     * @param count the count the message is about
     * @param type  the element type, or null for none
     * @param op    the reduction, or null for none
     * @param root  the root rank, or -1 for none
     * @return the tag
     */
    public static long tag(OpKind kind, long seq, long count, DataType type, ReduceOp op, int root) {
        long t = (long) kind.ordinal() << 60;
        t |= (long) (type == null ? 0xF : type.ordinal()) << 56;
        t |= (long) (op == null ? 7 : op.kind().ordinal()) << 53;
        t |= (long) (root < 0 ? NO_ROOT : root & NO_ROOT) << 40;
        t |= (seq & 0xFF) << 32;
        t |= foldCount(count) & 0xFFFF_FFFFL;
        return t;
    }

    private static long foldCount(long count) {
        return (count >>> 32) == 0 ? count : (count ^ (count >>> 32)) & 0xFFFF_FFFFL;
    }

    /**
     * Describes a tag the way the API was called, e.g. {@code allReduce(count=1000, FLOAT32, sum) call #17}.
     *
     * @param tag a tag made by {@link #tag}
     * @return the description
     */
    public static String describe(long tag) {
        int kindOrdinal = (int) (tag >>> 60);
        if (tag == HELLO_TAG || tag == CONTROL_TAG || kindOrdinal >= OpKind.values().length) {
            return "an internal message (0x" + Long.toHexString(tag) + ")";
        }
        OpKind kind = OpKind.values()[kindOrdinal];
        int typeOrdinal = (int) (tag >>> 56) & 0xF;
        int opOrdinal = (int) (tag >>> 53) & 0x7;
        int root = (int) (tag >>> 40) & NO_ROOT;
        long seq = (tag >>> 32) & 0xFF;
        long count = tag & 0xFFFF_FFFFL;
        StringBuilder sb = new StringBuilder(kind.apiName()).append("(count=").append(count);
        if (typeOrdinal < DataType.values().length) {
            sb.append(", ").append(DataType.values()[typeOrdinal]);
        }
        if (opOrdinal < ReduceOp.Kind.values().length) {
            sb.append(", ").append(ReduceOp.Kind.values()[opOrdinal].name().toLowerCase(java.util.Locale.ROOT));
        }
        if (root != NO_ROOT) {
            sb.append(", root=").append(root);
        }
        sb.append(") call #").append(seq).append(" (mod 256)");
        return sb.toString();
    }

    /**
     * Names the fields in which two tags differ; the root only when both calls have one.
     *
     * @param mine   this rank's tag
     * @param theirs the other rank's tag
     * @return e.g. {@code "count 1000 vs 1001, root 0 vs 1"}
     */
    public static String difference(long mine, long theirs) {
        StringBuilder sb = new StringBuilder();
        field(sb, "operation", (int) (mine >>> 60), (int) (theirs >>> 60), OpKindNames.INSTANCE);
        field(sb, "type", (int) (mine >>> 56) & 0xF, (int) (theirs >>> 56) & 0xF, TypeNames.INSTANCE);
        field(sb, "reduction", (int) (mine >>> 53) & 7, (int) (theirs >>> 53) & 7, OpNames.INSTANCE);
        int myRoot = (int) (mine >>> 40) & NO_ROOT;
        int theirRoot = (int) (theirs >>> 40) & NO_ROOT;
        if (myRoot != NO_ROOT && theirRoot != NO_ROOT) {   // a call without root differs in its operation already
            field(sb, "root", myRoot, theirRoot, null);
        }
        field(sb, "call number", (int) (mine >>> 32) & 0xFF, (int) (theirs >>> 32) & 0xFF, null);
        if ((mine & 0xFFFF_FFFFL) != (theirs & 0xFFFF_FFFFL)) {
            sep(sb).append("count ").append(mine & 0xFFFF_FFFFL).append(" vs ").append(theirs & 0xFFFF_FFFFL);
        }
        return sb.isEmpty() ? "no difference" : sb.toString();
    }

    private interface Names {
        String name(int ordinal);
    }

    private enum OpKindNames implements Names {
        INSTANCE;

        @Override
        public String name(int o) {
            return o < OpKind.values().length ? OpKind.values()[o].apiName() : "?";
        }
    }

    private enum TypeNames implements Names {
        INSTANCE;

        @Override
        public String name(int o) {
            return o < DataType.values().length ? DataType.values()[o].name() : "none";
        }
    }

    private enum OpNames implements Names {
        INSTANCE;

        @Override
        public String name(int o) {
            return o < ReduceOp.Kind.values().length
                    ? ReduceOp.Kind.values()[o].name().toLowerCase(java.util.Locale.ROOT) : "none";
        }
    }

    private static void field(StringBuilder sb, String label, int a, int b, Names names) {
        if (a != b) {
            sep(sb).append(label).append(' ')
                    .append(names == null ? Integer.toString(a) : names.name(a)).append(" vs ")
                    .append(names == null ? Integer.toString(b) : names.name(b));
        }
    }

    private static StringBuilder sep(StringBuilder sb) {
        return sb.isEmpty() ? sb : sb.append(", ");
    }
}
