package io.jccl;

import io.jccl.plan.OpKind;
import io.jccl.testing.CollectiveRun;
import io.jccl.testing.LocalComms;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Every collective x every type x every reduction x sizes {0, 1, 7, 1023} x ranks {1, 2, 3, 4, 5, 8}, in place and
 * out of place, buffers at odd offsets, verified exactly on every rank (as nccl-tests does) and checked for writes
 * outside the buffers; the large size, 1 MiB + 3 (many pipeline chunks, a partial last one), runs every type x
 * reduction x placement on one rank count each, rotated ({@link #largeSizeRanks}) so that every rank count meets
 * every type and every reduction at that size too. All-reduce runs with each of its three algorithms.
 */
class CollectiveMatrixTest {
    static final long LARGE_SIZE = (1 << 20) + 3;
    static final long[] SIZES = {0, 1, 7, 1023, LARGE_SIZE};
    static final int[] RANKS = {1, 2, 3, 4, 5, 8};
    static final ReduceOp.Kind[] OPS = ReduceOp.Kind.values();

    /**
     * The one rank count that runs a combination at {@link #LARGE_SIZE}: crossed with every rank count as the small
     * sizes are, the large size took 92% of this class's time (about 11 of the unit tier's minutes) for what a
     * rotation covers as well: each type meets all six rank counts over the six reductions, each reduction all six
     * over the twelve types, and in place runs on the rank count after out of place's.
     */
    static int largeSizeRanks(DataType type, ReduceOp.Kind op, boolean inPlace) {
        int turn = type.ordinal() + (op == null ? 0 : op.ordinal()) + (inPlace ? 1 : 0);
        return RANKS[turn % RANKS.length];
    }

    private static Stream<DynamicTest> matrix(OpKind kind, Algorithm algorithm) {
        boolean reducing = kind == OpKind.ALL_REDUCE || kind == OpKind.REDUCE || kind == OpKind.REDUCE_SCATTER;
        List<DynamicTest> tests = new ArrayList<>();
        for (int n : RANKS) {
            for (long size : SIZES) {
                for (DataType type : DataType.values()) {
                    for (ReduceOp.Kind op : reducing ? OPS : new ReduceOp.Kind[] {null}) {
                        for (boolean inPlace : CollectiveRun.supportsInPlace(kind) ? new boolean[] {false, true}
                                : new boolean[] {false}) {
                            if (size == LARGE_SIZE && n != largeSizeRanks(type, op, inPlace)) {
                                continue;
                            }
                            long seed = java.util.Objects.hash(kind, algorithm, n, size, type, op, inPlace);
                            String name = "n=" + n + " size=" + size + " " + type + (op == null ? "" : " " + op)
                                    + (inPlace ? " in-place" : "");
                            tests.add(DynamicTest.dynamicTest(name, () -> CollectiveRun.run(
                                    LocalComms.get(n, algorithm, null), kind, type, op, size, inPlace, seed)));
                        }
                    }
                }
            }
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> allReduceRing() {
        return matrix(OpKind.ALL_REDUCE, Algorithm.RING);
    }

    @TestFactory
    Stream<DynamicTest> allReduceTree() {
        return matrix(OpKind.ALL_REDUCE, Algorithm.TREE);
    }

    @TestFactory
    Stream<DynamicTest> allReduceRecursiveDoubling() {
        return matrix(OpKind.ALL_REDUCE, Algorithm.RECURSIVE_DOUBLING);
    }

    @TestFactory
    Stream<DynamicTest> reduce() {
        return matrix(OpKind.REDUCE, Algorithm.AUTO);
    }

    @TestFactory
    Stream<DynamicTest> reduceScatter() {
        return matrix(OpKind.REDUCE_SCATTER, Algorithm.AUTO);
    }

    @TestFactory
    Stream<DynamicTest> broadcast() {
        return matrix(OpKind.BROADCAST, Algorithm.AUTO);
    }

    @TestFactory
    Stream<DynamicTest> allGather() {
        return matrix(OpKind.ALL_GATHER, Algorithm.AUTO);
    }

    @TestFactory
    Stream<DynamicTest> allToAll() {
        return matrix(OpKind.ALL_TO_ALL, Algorithm.AUTO);
    }

    @TestFactory
    Stream<DynamicTest> allToAllv() {
        return matrix(OpKind.ALL_TO_ALLV, Algorithm.AUTO);
    }

    @TestFactory
    Stream<DynamicTest> gather() {
        return matrix(OpKind.GATHER, Algorithm.AUTO);
    }

    @TestFactory
    Stream<DynamicTest> scatter() {
        return matrix(OpKind.SCATTER, Algorithm.AUTO);
    }

    @TestFactory
    Stream<DynamicTest> sendRecvRing() {
        return matrix(OpKind.P2P, Algorithm.AUTO);
    }
}
