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
 * Every collective x every type x every reduction x sizes {0, 1, 7, 1023, 1 MiB + 3} x ranks {1, 2, 3, 4, 5, 8},
 * in place and out of place, buffers at odd offsets, verified exactly on every rank (as nccl-tests does) and
 * checked for writes outside the buffers. All-reduce runs with each of its three algorithms.
 */
class CollectiveMatrixTest {
    static final long[] SIZES = {0, 1, 7, 1023, (1 << 20) + 3};
    static final int[] RANKS = {1, 2, 3, 4, 5, 8};
    static final ReduceOp.Kind[] OPS = ReduceOp.Kind.values();

    private static Stream<DynamicTest> matrix(OpKind kind, Algorithm algorithm) {
        boolean reducing = kind == OpKind.ALL_REDUCE || kind == OpKind.REDUCE || kind == OpKind.REDUCE_SCATTER;
        List<DynamicTest> tests = new ArrayList<>();
        for (int n : RANKS) {
            for (long size : SIZES) {
                for (DataType type : DataType.values()) {
                    for (ReduceOp.Kind op : reducing ? OPS : new ReduceOp.Kind[] {null}) {
                        for (boolean inPlace : CollectiveRun.supportsInPlace(kind) ? new boolean[] {false, true}
                                : new boolean[] {false}) {
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
