package io.jccl.core;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.bootstrap.Bootstrap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The rendezvous of a split: the parent's ranks exchange fixed-size records over the parent; each member
 * reads its group's records in the group's order.
 */
final class SubgroupBootstrap implements Bootstrap {
    /** Bytes per rank in the all-gathers a split runs over its parent. */
    static final int SPLIT_RECORD_BYTES = 4096;

    private final CommExecutor parent;
    private final int[] members;
    private final int myIndex;
    private final OpRequest op;

    private final byte[] communicatorSecret;

    SubgroupBootstrap(CommExecutor parent, int[] members, OpRequest op, byte[] communicatorSecret) {
        this.communicatorSecret = communicatorSecret;
        this.parent = parent;
        this.members = members;
        this.myIndex = Arrays.binarySearch(sortedCopy(members), parent.rank()) >= 0 ? indexOf(members, parent.rank())
                : -1;
        this.op = op;
    }

    private static int[] sortedCopy(int[] a) {
        int[] c = a.clone();
        Arrays.sort(c);
        return c;
    }

    private static int indexOf(int[] a, int v) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public int rank() {
        return myIndex;
    }

    @Override
    public byte[] communicatorSecret() {
        return communicatorSecret.clone();
    }

    @Override
    public int size() {
        return members.length;
    }

    @Override
    public byte[][] allGather(byte[] mineBytes) {
        if (mineBytes.length > SPLIT_RECORD_BYTES - 4) {
            throw new JcclException(ErrorCode.INTERNAL_ERROR, "split record of " + mineBytes.length
                    + " bytes exceeds " + (SPLIT_RECORD_BYTES - 4));
        }
        int n = parent.size();
        try (Arena a = Arena.ofShared()) {
            MemorySegment mine = a.allocate(SPLIT_RECORD_BYTES);
            MemorySegment all = a.allocate((long) SPLIT_RECORD_BYTES * n);
            mine.set(ValueLayout.JAVA_INT, 0, mineBytes.length);
            MemorySegment.copy(mineBytes, 0, mine, ValueLayout.JAVA_BYTE, 4, mineBytes.length);
            try {
                parent.internalAllGather(mine, all, SPLIT_RECORD_BYTES, op);
            } catch (JcclException e) {
                throw new ParentFailure(e);
            }
            byte[][] out = new byte[members.length][];
            for (int i = 0; i < members.length; i++) {
                long base = (long) SPLIT_RECORD_BYTES * members[i];
                int len = all.get(ValueLayout.JAVA_INT, base);
                if (len < 0 || len > SPLIT_RECORD_BYTES - 4) {
                    throw new ParentFailure(new JcclException(ErrorCode.INTERNAL_ERROR,
                            "malformed split record from rank " + members[i]));
                }
                out[i] = new byte[len];
                MemorySegment.copy(all, ValueLayout.JAVA_BYTE, base + 4, out[i], 0, len);
            }
            return out;
        }
    }

    @Override
    public void close() {
    }
}
