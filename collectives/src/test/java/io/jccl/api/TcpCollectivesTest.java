package io.jccl.api;

import io.jccl.Algorithm;
import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.plan.OpKind;
import io.jccl.testing.CollectiveRun;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The collectives over the TCP transport ({@code transport("tcp")}) on 2, 3 and 4 ranks: a reduced matrix of
 * every collective and send/recv, a few types and reductions, sizes 0, 7 and 1 MiB + 3 elements, in and out of
 * place, checked exactly; all-reduce with each algorithm; zero counts with null buffers; and a mismatch.
 */
@Tag("integration")
class TcpCollectivesTest {
    static final int[] RANKS = {2, 3, 4};
    static final long BIG = (1 << 20) + 3;
    private static final Map<String, List<Communicator>> COMMS = new HashMap<>();

    static synchronized List<Communicator> tcp(int n, Algorithm algorithm) {
        return COMMS.computeIfAbsent(n + "/" + algorithm, k -> Communicator.local(n, CommConfig.builder()
                .transport("tcp").algorithm(algorithm).opTimeout(Duration.ofSeconds(60)).build()));
    }

    @AfterAll
    static void closeAll() {
        COMMS.values().forEach(CommAssertions::abortAll);
        COMMS.clear();
    }

    private static boolean reducing(OpKind kind) {
        return kind == OpKind.ALL_REDUCE || kind == OpKind.REDUCE || kind == OpKind.REDUCE_SCATTER;
    }

    /**
     * With one-way connections ({@code JCCL_SOCKET_DUPLEX=0}; the rest of this class runs the default, where higher
     * ranks connect to lower ones only after accepting their connections and send over their sockets), on 2 to 4
     * ranks: all-reduce small and large with every algorithm, in and out of place, all-to-all and send/recv, each
     * exact.
     */
    @TestFactory
    Stream<DynamicTest> collectivesOverOneWayConnections() {
        List<DynamicTest> tests = new ArrayList<>();
        for (int n : RANKS) {
            for (Algorithm a : Algorithm.values()) {
                for (long size : new long[] {7, BIG}) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        tests.add(DynamicTest.dynamicTest("n=" + n + " allReduce " + a + " size=" + size
                                + (inPlace ? " in-place" : "") + " one-way", () -> CollectiveRun.run(oneWay(n, a),
                                OpKind.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, size, inPlace, n + size)));
                    }
                }
            }
            for (OpKind kind : new OpKind[] {OpKind.ALL_TO_ALL, OpKind.P2P, OpKind.BROADCAST}) {
                tests.add(DynamicTest.dynamicTest("n=" + n + " " + kind.apiName() + " one-way", () -> CollectiveRun.run(
                        oneWay(n, Algorithm.AUTO), kind, DataType.INT32, null, BIG, false, kind.ordinal())));
            }
        }
        return tests.stream();
    }

    private static synchronized List<Communicator> oneWay(int n, Algorithm algorithm) {
        return COMMS.computeIfAbsent(n + "/one-way/" + algorithm, k -> Communicator.local(n, CommConfig.builder()
                .transport("tcp").algorithm(algorithm).option("JCCL_SOCKET_DUPLEX", "0")
                .opTimeout(Duration.ofSeconds(60)).build()));
    }

    @TestFactory
    Stream<DynamicTest> everyCollectiveOverTcp() {
        OpKind[] kinds = {OpKind.ALL_REDUCE, OpKind.BROADCAST, OpKind.REDUCE, OpKind.ALL_GATHER,
            OpKind.REDUCE_SCATTER, OpKind.ALL_TO_ALL, OpKind.ALL_TO_ALLV, OpKind.GATHER, OpKind.SCATTER, OpKind.P2P};
        List<DynamicTest> tests = new ArrayList<>();
        for (int n : RANKS) {
            for (OpKind kind : kinds) {
                // Small sizes: several types and reductions; the big one: one type each.
                for (long size : new long[] {0, 7}) {
                    for (DataType type : new DataType[] {DataType.FLOAT32, DataType.BFLOAT16, DataType.INT64,
                        DataType.UINT8}) {
                        ReduceOp.Kind op = reducing(kind)
                                ? (type == DataType.INT64 ? ReduceOp.Kind.PRE_MUL_SUM : ReduceOp.Kind.AVG) : null;
                        add(tests, n, kind, type, op, size, Algorithm.AUTO);
                    }
                }
                add(tests, n, kind, DataType.FLOAT32, reducing(kind) ? ReduceOp.Kind.SUM : null, BIG,
                        Algorithm.AUTO);
                if (reducing(kind)) {
                    add(tests, n, kind, DataType.FLOAT16, ReduceOp.Kind.MIN, BIG / 2, Algorithm.AUTO);
                }
            }
            for (Algorithm a : new Algorithm[] {Algorithm.RING, Algorithm.TREE, Algorithm.RECURSIVE_DOUBLING}) {
                add(tests, n, OpKind.ALL_REDUCE, DataType.INT32, ReduceOp.Kind.SUM, BIG, a);
                add(tests, n, OpKind.ALL_REDUCE, DataType.FLOAT64, ReduceOp.Kind.MAX, 7, a);
            }
        }
        return tests.stream();
    }

    private static void add(List<DynamicTest> tests, int n, OpKind kind, DataType type, ReduceOp.Kind op, long size,
                            Algorithm algorithm) {
        for (boolean inPlace : CollectiveRun.supportsInPlace(kind) ? new boolean[] {false, true}
                : new boolean[] {false}) {
            if (inPlace && size == BIG && kind != OpKind.ALL_REDUCE && kind != OpKind.ALL_GATHER) {
                continue;   // keeps the class quick; in place of the others runs at the small sizes
            }
            String name = "n=" + n + " " + kind.apiName() + " " + type + (op == null ? "" : " " + op) + " size="
                    + size + (inPlace ? " in-place" : "") + (algorithm == Algorithm.AUTO ? "" : " " + algorithm);
            long seed = java.util.Objects.hash(n, kind, type, op, size, inPlace, algorithm);
            tests.add(DynamicTest.dynamicTest(name, () -> CollectiveRun.run(tcp(n, algorithm), kind, type, op, size,
                    inPlace, seed)));
        }
    }

    /**
     * With four sockets per connection and 4 KiB stripes, every chunk of the big cases is striped: all-reduce with
     * each algorithm, broadcast, all-to-all and send/recv on 3 ranks stay exact.
     */
    @TestFactory
    Stream<DynamicTest> collectivesOverFourSocketConnections() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Algorithm a : new Algorithm[] {Algorithm.RING, Algorithm.TREE, Algorithm.RECURSIVE_DOUBLING}) {
            tests.add(DynamicTest.dynamicTest("n=3 allReduce " + a + " 4 sockets", () -> CollectiveRun.run(
                    fourSockets(a), OpKind.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, BIG, false, a.ordinal())));
        }
        for (OpKind kind : new OpKind[] {OpKind.BROADCAST, OpKind.ALL_TO_ALL, OpKind.P2P}) {
            tests.add(DynamicTest.dynamicTest("n=3 " + kind.apiName() + " 4 sockets", () -> CollectiveRun.run(
                    fourSockets(Algorithm.AUTO), kind, DataType.INT32, null, BIG, false, kind.ordinal())));
        }
        return tests.stream();
    }

    private static synchronized List<Communicator> fourSockets(Algorithm algorithm) {
        return COMMS.computeIfAbsent("3/4 sockets/" + algorithm, k -> Communicator.local(3, CommConfig.builder()
                .transport("tcp").algorithm(algorithm).opTimeout(Duration.ofSeconds(60))
                .option("JCCL_SOCKET_NSOCKS", "4").option("JCCL_SOCKET_MIN_STRIPE_BYTES", "4096").build()));
    }

    @Test
    void zeroCountsWithNullBuffersAndEmptyBlocks() {
        List<Communicator> comms = tcp(3, Algorithm.AUTO);
        List<CollectiveFuture> fs = new ArrayList<>();
        for (Communicator c : comms) {
            fs.add(c.allReduce(null, null, 0, DataType.FLOAT32, ReduceOp.SUM));
            fs.add(c.broadcast(null, null, 0, DataType.FLOAT32, 2));
            fs.add(c.reduce(null, null, 0, DataType.FLOAT32, ReduceOp.SUM, 1));
            fs.add(c.allGather(null, null, 0, DataType.INT8));
            fs.add(c.reduceScatter(null, null, 0, DataType.INT8, ReduceOp.MAX));
            fs.add(c.allToAll(null, null, 0, DataType.INT8));
            fs.add(c.gather(null, null, 0, DataType.INT8, 0));
            fs.add(c.scatter(null, null, 0, DataType.INT8, 0));
            fs.add(c.allToAllv(null, new long[3], new long[3], null, new long[3], new long[3],
                    DataType.INT8));
            fs.add(c.barrier());
        }
        CommAssertions.awaitAll(fs);
        // all-to-allv where only rank 0 -> rank 2 carries data; the other blocks are empty with wild displacements.
        try (Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(40);
            for (int i = 0; i < 10; i++) {
                src.setAtIndex(ValueLayout.JAVA_INT, i, 100 + i);
            }
            MemorySegment dst = arena.allocate(40);
            long[] wild = {1 << 20, 1 << 20, 1 << 20};
            fs.clear();
            for (Communicator c : comms) {
                int r = c.rank();
                long[] sc = {0, 0, r == 0 ? 10 : 0};
                long[] rc = {r == 2 ? 10 : 0, 0, 0};
                long[] sd = r == 0 ? new long[] {1 << 20, 1 << 20, 0} : wild;
                long[] rd = r == 2 ? new long[] {0, 1 << 20, 1 << 20} : wild;
                fs.add(c.allToAllv(Buffer.of(r == 0 ? src : null), sc, sd, Buffer.of(r == 2 ? dst : null), rc, rd,
                        DataType.INT32));
            }
            CommAssertions.awaitAll(fs);
            for (int i = 0; i < 10; i++) {
                assertThat(dst.getAtIndex(ValueLayout.JAVA_INT, i)).isEqualTo(100 + i);
            }
        }
        CommAssertions.assertAllReduceWorks(comms, 1000);
    }

    @Test
    void mismatchOverTcpFailsWithTheDifference() {
        for (int n : RANKS) {
            MismatchTest.run(n, MismatchTest.cases().get(0), "tcp");   // allReduce count 1000 vs 1001
        }
    }
}
