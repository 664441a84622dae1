package io.jccl.api;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ErrorCode;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static io.jccl.DataType.FLOAT32;
import static io.jccl.DataType.INT32;
import static io.jccl.ErrorCode.INVALID_ARGUMENT;
import static io.jccl.ErrorCode.INVALID_USAGE;
import static io.jccl.ReduceOp.SUM;
import static io.jccl.api.CommAssertions.assertAllReduceWorks;
import static io.jccl.api.CommAssertions.assertPattern;
import static io.jccl.api.CommAssertions.assertThrowsJccl;
import static io.jccl.api.CommAssertions.awaitAll;
import static io.jccl.api.CommAssertions.fillPattern;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every operation, on every kind of {@link Buffer} (segments, heap arrays, ByteBuffers), rejects bad arguments at
 * once with INVALID_ARGUMENT (INVALID_USAGE for misuse) and a message naming the parameter and the value; no
 * buffer is touched, and the communicator works normally afterwards.
 */
class BadInputTest {
    private static final long HUGE = Long.MAX_VALUE / 2;   // x 4 bytes overflows a long
    private static List<Communicator> comms;
    private static Arena arena;
    private static Bufs b;

    /** Every buffer the cases use; all are filled with a pattern before a case and checked after it. */
    static final class Bufs {
        final MemorySegment send = arena.allocate(64);
        final MemorySegment recv = arena.allocate(64);
        final MemorySegment small = arena.allocate(8);
        final MemorySegment big = arena.allocate(256);
        final byte[] bytes = new byte[64];
        final short[] shorts = new short[32];
        final int[] ints = new int[16];
        final int[] ints2 = new int[16];
        final long[] longs = new long[8];
        final float[] floats = new float[16];
        final float[] floats2 = new float[16];
        final double[] doubles = new double[8];
        final ByteBuffer direct = ByteBuffer.allocateDirect(64);
        final ByteBuffer heap = ByteBuffer.allocate(64);

        List<MemorySegment> all() {
            return List.of(send, recv, small, big, MemorySegment.ofArray(bytes), MemorySegment.ofArray(shorts),
                    MemorySegment.ofArray(ints), MemorySegment.ofArray(ints2), MemorySegment.ofArray(longs),
                    MemorySegment.ofArray(floats), MemorySegment.ofArray(floats2), MemorySegment.ofArray(doubles),
                    MemorySegment.ofBuffer(direct.clear()), MemorySegment.ofBuffer(heap.clear()));
        }

        void fill() {
            List<MemorySegment> all = all();
            for (int i = 0; i < all.size(); i++) {
                fillPattern(all.get(i), i);
            }
        }

        void check(String what) {
            List<MemorySegment> all = all();
            for (int i = 0; i < all.size(); i++) {
                assertPattern(all.get(i), i, what + ", buffer #" + i);
            }
        }
    }

    @BeforeAll
    static void setUp() {
        comms = newComms();
        arena = Arena.ofShared();
        b = new Bufs();
    }

    private static List<Communicator> newComms() {
        return Communicator.local(2, CommConfig.builder().opTimeout(Duration.ofSeconds(20)).build());
    }

    @AfterAll
    static void tearDown() {
        CommAssertions.abortAll(comms);
        arena.close();
    }

    /** One bad call on rank 0 (or the rank the case uses). */
    private record Case(String name, ErrorCode code, CommAssertions.Call call, String... fragments) {
    }

    private static Case bad(String name, CommAssertions.Call call, String... fragments) {
        return new Case(name, INVALID_ARGUMENT, call, fragments);
    }

    private static Communicator c0() {
        return comms.get(0);
    }

    private static Communicator c1() {
        return comms.get(1);
    }

    private static List<Case> cases() {
        List<Case> cs = new ArrayList<>();
        // ---- allReduce ----
        cs.add(bad("allReduce null send", () -> c0().allReduce(null, Buffer.of(b.recv), 4, FLOAT32, SUM),
                "send must not be null"));
        cs.add(bad("allReduce null recv", () -> c0().allReduce(Buffer.of(b.send), null, 4, FLOAT32, SUM),
                "recv must not be null"));
        cs.add(bad("allReduce small send", () -> c0().allReduce(Buffer.of(b.small), Buffer.of(b.recv), 4, FLOAT32, SUM),
                "send holds 8 bytes", "needs 16"));
        cs.add(bad("allReduce small recv", () -> c0().allReduce(Buffer.of(b.send), Buffer.of(b.small), 4, FLOAT32, SUM),
                "recv holds 8 bytes", "needs 16"));
        cs.add(bad("allReduce negative count", () -> c0().allReduce(Buffer.of(b.send), Buffer.of(b.recv), -3, FLOAT32,
                SUM),
                "count must not be negative, got -3"));
        cs.add(bad("allReduce count overflow", () -> c0().allReduce(Buffer.of(b.send), Buffer.of(b.recv), HUGE,
                FLOAT32, SUM),
                "count " + HUGE, "overflows"));
        cs.add(bad("allReduce null type", () -> c0().allReduce(Buffer.of(b.send), Buffer.of(b.recv), 4, null, SUM),
                "type must not be null"));
        cs.add(bad("allReduce null op", () -> c0().allReduce(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32, null),
                "op must not be null"));
        cs.add(bad("allReduce preMulSum(0.5) INT32",
                () -> c0().allReduce(Buffer.of(b.send), Buffer.of(b.recv), 4, INT32, ReduceOp.preMulSum(0.5)),
                        "preMulSum(0.5)", "INT32"));
        cs.add(bad("allReduce preMulSum(300) INT8",
                () -> c0().allReduce(Buffer.of(b.send), Buffer.of(b.recv), 4, DataType.INT8, ReduceOp.preMulSum(300)),
                        "300", "INT8",
                "range"));
        cs.add(bad("allReduce preMulSum(-1) UINT32",
                () -> c0().allReduce(Buffer.of(b.send), Buffer.of(b.recv), 4, DataType.UINT32, ReduceOp.preMulSum(-1)),
                        "-1", "UINT32"));
        cs.add(bad("allReduce preMulSum(NaN) INT64",
                () -> c0().allReduce(Buffer.of(b.send), Buffer.of(b.recv), 4, DataType.INT64,
                        ReduceOp.preMulSum(Double.NaN)), "NaN",
                "INT64"));
        cs.add(bad("allReduce read-only recv",
                () -> c0().allReduce(Buffer.of(b.send), Buffer.of(b.recv.asReadOnly()), 4, FLOAT32, SUM),
                        "recv is read-only"));
        cs.add(bad("allReduce overlap", () -> c0().allReduce(Buffer.of(b.big.asSlice(0, 16)),
                Buffer.of(b.big.asSlice(4, 16)), 4, FLOAT32, SUM),
                "allReduce", "overlap"));
        cs.add(bad("allReduce overlap, recv before send",
                () -> c0().allReduce(Buffer.of(b.big.asSlice(8, 16)), Buffer.of(b.big.asSlice(0, 16)), 4, FLOAT32,
                        SUM), "overlap"));
        cs.add(bad("allReduce overlap heap arrays",
                () -> c0().allReduce(Buffer.of(MemorySegment.ofArray(b.floats).asSlice(4)),
                        Buffer.of(MemorySegment.ofArray(b.floats)), 4, FLOAT32, SUM), "overlap"));
        cs.add(bad("allReduce overlap read-only heap send",
                () -> c0().allReduce(Buffer.of(MemorySegment.ofArray(b.floats).asSlice(4).asReadOnly()),
                        Buffer.of(MemorySegment.ofArray(b.floats)), 4, FLOAT32, SUM), "overlap"));
        cs.add(bad("allReduce overlap read-only native send",
                () -> c0().allReduce(Buffer.of(b.big.asSlice(4, 16).asReadOnly()), Buffer.of(b.big.asSlice(0, 16)), 4,
                        FLOAT32, SUM),
                "overlap"));
        cs.add(bad("allReduce float[] FLOAT16", () -> c0().allReduce(Buffer.of(b.floats), Buffer.of(b.floats2), 4,
                DataType.FLOAT16, SUM),
                "float[]", "FLOAT16"));
        cs.add(bad("allReduce short[] FLOAT32", () -> c0().allReduce(Buffer.of(b.shorts), Buffer.of(b.shorts), 4,
                FLOAT32, SUM),
                "short[]", "FLOAT32"));
        cs.add(bad("allReduce int[] INT64", () -> c0().allReduce(Buffer.of(b.ints), Buffer.of(b.ints2), 4,
                DataType.INT64, SUM),
                "int[]", "INT64"));
        cs.add(bad("allReduce long[] INT32", () -> c0().allReduce(Buffer.of(b.longs), Buffer.of(b.longs), 4, INT32,
                SUM), "long[]", "INT32"));
        cs.add(bad("allReduce double[] FLOAT32", () -> c0().allReduce(Buffer.of(b.doubles), Buffer.of(b.doubles), 4,
                FLOAT32, SUM),
                "double[]", "FLOAT32"));
        cs.add(bad("allReduce float[] too small", () -> c0().allReduce(Buffer.of(b.floats), Buffer.of(b.floats2), 17,
                FLOAT32, SUM),
                "send holds 64 bytes", "needs 68"));
        cs.add(bad("allReduce int[] too small", () -> c0().allReduce(Buffer.of(b.ints), Buffer.of(b.ints), 17, INT32,
                SUM), "holds 64"));
        cs.add(bad("allReduce read-only direct ByteBuffer recv",
                () -> c0().allReduce(Buffer.of(b.direct.clear()),
                        Buffer.of(b.direct.duplicate().clear().asReadOnlyBuffer()), 4, FLOAT32, SUM),
                "recv is read-only"));
        cs.add(bad("allReduce read-only heap ByteBuffer recv",
                () -> c0().allReduce(Buffer.of(b.direct.clear()), Buffer.of(b.heap.clear().asReadOnlyBuffer()), 4,
                        FLOAT32, SUM),
                "recv is read-only"));
        cs.add(bad("allReduce ByteBuffer position leaves too little",
                () -> c0().allReduce(Buffer.of(b.direct.clear().position(56)), Buffer.of(b.heap.clear()), 4, FLOAT32,
                        SUM),
                "send holds 8 bytes", "needs 16"));
        cs.add(bad("allReduce null ByteBuffer recv",
                () -> c0().allReduce(Buffer.of(b.direct.clear()), null, 4, FLOAT32, SUM), "recv must not be null"));
        cs.add(bad("allReduce null array send",
                () -> c0().allReduce(null, Buffer.of(b.floats), 4, FLOAT32, SUM), "send must not be null"));

        // ---- broadcast ----
        cs.add(bad("broadcast root -1", () -> c0().broadcast(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32, -1),
                "root -1", "out of range"));
        cs.add(bad("broadcast root 2", () -> c0().broadcast(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32, 2),
                "root 2", "0 to 1"));
        cs.add(bad("broadcast null send on root", () -> c0().broadcast(null, Buffer.of(b.recv), 4, FLOAT32, 0),
                "send must not be null"));
        cs.add(bad("broadcast null recv on non-root", () -> c1().broadcast(Buffer.of(b.send), null, 4, FLOAT32, 0),
                "recv must not be null"));
        cs.add(bad("broadcast small recv", () -> c1().broadcast(null, Buffer.of(b.small), 4, FLOAT32, 0),
                "recv holds 8"));
        cs.add(bad("broadcast negative count", () -> c0().broadcast(Buffer.of(b.send), Buffer.of(b.recv), -1, FLOAT32,
                0),
                "count must not be negative, got -1"));
        cs.add(bad("broadcast null type", () -> c0().broadcast(Buffer.of(b.send), Buffer.of(b.recv), 4, null, 0),
                "type must not be null"));
        cs.add(bad("broadcast count overflow", () -> c0().broadcast(Buffer.of(b.send), Buffer.of(b.recv), HUGE,
                FLOAT32, 0), "count " + HUGE));
        cs.add(bad("broadcast overlap on root",
                () -> c0().broadcast(Buffer.of(b.big.asSlice(0, 16)), Buffer.of(b.big.asSlice(4, 16)), 4, FLOAT32, 0),
                        "overlap"));
        cs.add(bad("broadcast read-only recv", () -> c1().broadcast(null, Buffer.of(b.recv.asReadOnly()), 4, FLOAT32,
                0),
                "recv is read-only"));
        cs.add(bad("broadcast in-place form root out of range", () -> c0().broadcast(Buffer.of(b.recv), 4, FLOAT32, 7),
                "root 7"));
        cs.add(bad("broadcast double[] FLOAT16",
                () -> c0().broadcast(Buffer.of(b.doubles), Buffer.of(b.doubles), 2, DataType.FLOAT16, 0), "double[]",
                        "FLOAT16"));

        // ---- reduce ----
        cs.add(bad("reduce root 5", () -> c0().reduce(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32, SUM, 5),
                "root 5"));
        cs.add(bad("reduce null op", () -> c0().reduce(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32, null, 0),
                "op must not be null"));
        cs.add(bad("reduce null send on non-root", () -> c1().reduce(null, null, 4, FLOAT32, SUM, 0),
                "send must not be null"));
        cs.add(bad("reduce null recv on root", () -> c0().reduce(Buffer.of(b.send), null, 4, FLOAT32, SUM, 0),
                "recv must not be null"));
        cs.add(bad("reduce read-only recv on root", () -> c0().reduce(Buffer.of(b.send),
                Buffer.of(b.recv.asReadOnly()), 4, FLOAT32, SUM, 0),
                "recv is read-only"));
        cs.add(bad("reduce preMulSum(2.5) UINT8",
                () -> c0().reduce(Buffer.of(b.send), Buffer.of(b.recv), 4, DataType.UINT8, ReduceOp.preMulSum(2.5), 0),
                        "2.5", "UINT8"));
        cs.add(bad("reduce overlap on root",
                () -> c0().reduce(Buffer.of(b.big.asSlice(4, 16)), Buffer.of(b.big.asSlice(0, 16)), 4, FLOAT32, SUM,
                        0), "overlap"));
        cs.add(bad("reduce negative count", () -> c0().reduce(Buffer.of(b.send), Buffer.of(b.recv), -8, FLOAT32, SUM,
                0), "got -8"));

        // ---- allGather ----
        cs.add(bad("allGather small recv", () -> c0().allGather(Buffer.of(b.send), Buffer.of(b.small), 2, FLOAT32),
                "recv holds 8", "needs 16"));
        cs.add(bad("allGather small recv (2 ranks)", () -> c0().allGather(Buffer.of(b.send), Buffer.of(b.recv), 9,
                FLOAT32),
                "recv holds 64 bytes", "needs 72"));
        cs.add(bad("allGather negative sendCount", () -> c0().allGather(Buffer.of(b.send), Buffer.of(b.recv), -1,
                FLOAT32),
                "sendCount must not be negative, got -1"));
        cs.add(bad("allGather sendCount overflow", () -> c0().allGather(Buffer.of(b.send), Buffer.of(b.recv),
                Long.MAX_VALUE / 6, FLOAT32),
                "sendCount " + Long.MAX_VALUE / 6, "overflows"));
        cs.add(bad("allGather null send", () -> c0().allGather(null, Buffer.of(b.recv), 4, FLOAT32),
                "send must not be null"));
        cs.add(bad("allGather overlap not in place (rank 1 at block 0)",
                () -> c1().allGather(Buffer.of(b.big.asSlice(0, 16)), Buffer.of(b.big.asSlice(0, 32)), 4, FLOAT32),
                        "allGather", "overlap",
                "send is not at the in-place position (recv + 16 bytes)"));
        cs.add(bad("allGather read-only ByteBuffer recv",
                () -> c0().allGather(Buffer.of(b.heap.clear()), Buffer.of(b.direct.clear().asReadOnlyBuffer()), 4,
                        FLOAT32),
                "recv is read-only"));

        // ---- reduceScatter ----
        cs.add(bad("reduceScatter small send", () -> c0().reduceScatter(Buffer.of(b.send), Buffer.of(b.recv), 9,
                FLOAT32, SUM),
                "send holds 64 bytes", "needs 72"));
        cs.add(bad("reduceScatter negative recvCount", () -> c0().reduceScatter(Buffer.of(b.send), Buffer.of(b.recv),
                -2, FLOAT32, SUM),
                "recvCount must not be negative, got -2"));
        cs.add(bad("reduceScatter null op", () -> c0().reduceScatter(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32,
                null),
                "op must not be null"));
        cs.add(bad("reduceScatter overlap not in place",
                () -> c0().reduceScatter(Buffer.of(b.big.asSlice(0, 32)), Buffer.of(b.big.asSlice(4, 16)), 4, FLOAT32,
                        SUM),
                "reduceScatter", "overlap"));
        cs.add(bad("reduceScatter overlap: recv at block 0 on rank 1",
                () -> c1().reduceScatter(Buffer.of(b.big.asSlice(0, 32)), Buffer.of(b.big.asSlice(0, 16)), 4, FLOAT32,
                        SUM),
                "reduceScatter", "overlap", "recv is not at the in-place position (send + 16 bytes)"));
        cs.add(bad("reduceScatter long[] FLOAT32",
                () -> c0().reduceScatter(Buffer.of(b.longs), Buffer.of(b.longs), 2, FLOAT32, SUM), "long[]",
                        "FLOAT32"));

        // ---- allToAll ----
        cs.add(bad("allToAll in place", () -> c0().allToAll(Buffer.of(b.big), Buffer.of(b.big), 4, FLOAT32),
                "allToAll", "in place"));
        cs.add(bad("allToAll partial overlap", () -> c0().allToAll(Buffer.of(b.big.asSlice(0, 32)),
                Buffer.of(b.big.asSlice(16, 32)), 4, FLOAT32),
                "allToAll", "overlap"));
        cs.add(bad("allToAll same array", () -> c0().allToAll(Buffer.of(b.ints), Buffer.of(b.ints), 4, INT32),
                "allToAll"));
        cs.add(bad("allToAll small recv", () -> c0().allToAll(Buffer.of(b.send), Buffer.of(b.small), 4, FLOAT32),
                "recv holds 8", "needs 32"));
        cs.add(bad("allToAll negative count", () -> c0().allToAll(Buffer.of(b.send), Buffer.of(b.recv), -4, FLOAT32),
                "got -4"));

        // ---- allToAllv ----
        long[] ok = {2, 2};
        long[] okD = {0, 2};
        cs.add(bad("allToAllv null sendCounts", () -> c0().allToAllv(Buffer.of(b.send), null, okD, Buffer.of(b.recv),
                ok, okD, FLOAT32),
                "sendCounts must not be null"));
        cs.add(bad("allToAllv recvDispls too short",
                () -> c0().allToAllv(Buffer.of(b.send), ok, okD, Buffer.of(b.recv), ok, new long[] {0}, FLOAT32),
                "recvDispls has 1 entries", "2 ranks"));
        cs.add(bad("allToAllv sendCounts too long",
                () -> c0().allToAllv(Buffer.of(b.send), new long[] {1, 1, 1}, okD, Buffer.of(b.recv), ok, okD, FLOAT32),
                "sendCounts has 3 entries"));
        cs.add(bad("allToAllv negative recvCount",
                () -> c0().allToAllv(Buffer.of(b.send), ok, okD, Buffer.of(b.recv), new long[] {2, -5}, okD, FLOAT32),
                "recvCounts[1] must not be negative, got -5"));
        cs.add(bad("allToAllv negative sendDispl",
                () -> c0().allToAllv(Buffer.of(b.send), ok, new long[] {-1, 2}, Buffer.of(b.recv), ok, okD, FLOAT32),
                "sendDispls[0] must not be negative, got -1"));
        cs.add(bad("allToAllv sendDispls beyond the buffer",
                () -> c0().allToAllv(Buffer.of(b.send), ok, new long[] {0, 15}, Buffer.of(b.recv), ok, okD, FLOAT32),
                "sendDispls[1]", "15", "send holds 64 bytes"));
        cs.add(bad("allToAllv recvDispls beyond the buffer",
                () -> c0().allToAllv(Buffer.of(b.send), ok, okD, Buffer.of(b.recv), ok, new long[] {100, 0}, FLOAT32),
                "recvDispls[0]", "100", "recv holds 64 bytes"));
        cs.add(bad("allToAllv displacement overflow",
                () -> c0().allToAllv(Buffer.of(b.send), ok, new long[] {0, Long.MAX_VALUE}, Buffer.of(b.recv), ok, okD,
                        FLOAT32),
                "sendDispls[1]", "overflows"));
        cs.add(bad("allToAllv in place", () -> c0().allToAllv(Buffer.of(b.send), ok, okD, Buffer.of(b.send), ok, okD,
                FLOAT32),
                "allToAllv", "in place"));
        cs.add(bad("allToAllv null recv", () -> c0().allToAllv(Buffer.of(b.send), ok, okD, null, ok, okD, FLOAT32),
                "recv must not be null"));
        cs.add(bad("allToAllv null type", () -> c0().allToAllv(Buffer.of(b.send), ok, okD, Buffer.of(b.recv), ok, okD,
                null),
                "type must not be null"));
        cs.add(bad("allToAllv float[] FLOAT64",
                () -> c0().allToAllv(Buffer.of(b.floats), ok, okD, Buffer.of(b.floats2), ok, okD, DataType.FLOAT64),
                        "float[]", "FLOAT64"));

        // ---- gather ----
        cs.add(bad("gather root 2", () -> c0().gather(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32, 2), "root 2"));
        cs.add(bad("gather null recv on root", () -> c0().gather(Buffer.of(b.send), null, 4, FLOAT32, 0),
                "recv must not be null"));
        cs.add(bad("gather small recv on root", () -> c0().gather(Buffer.of(b.send), Buffer.of(b.recv), 9, FLOAT32, 0),
                "recv holds 64 bytes", "needs 72"));
        cs.add(bad("gather null send on non-root", () -> c1().gather(null, null, 4, FLOAT32, 0),
                "send must not be null"));
        cs.add(bad("gather overlap on root at the wrong block",
                () -> c0().gather(Buffer.of(b.big.asSlice(16, 16)), Buffer.of(b.big.asSlice(0, 32)), 4, FLOAT32, 0),
                        "gather", "overlap"));
        cs.add(bad("gather negative sendCount", () -> c0().gather(Buffer.of(b.send), Buffer.of(b.recv), -1, FLOAT32,
                0), "sendCount"));

        // ---- scatter ----
        cs.add(bad("scatter root -3", () -> c0().scatter(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32, -3),
                "root -3"));
        cs.add(bad("scatter null send on root", () -> c0().scatter(null, Buffer.of(b.recv), 4, FLOAT32, 0),
                "send must not be null"));
        cs.add(bad("scatter small send on root", () -> c0().scatter(Buffer.of(b.send), Buffer.of(b.recv), 9, FLOAT32,
                0),
                "send holds 64 bytes", "needs 72"));
        cs.add(bad("scatter null recv on non-root", () -> c1().scatter(null, null, 4, FLOAT32, 0),
                "recv must not be null"));
        cs.add(bad("scatter read-only recv", () -> c1().scatter(null, Buffer.of(b.recv.asReadOnly()), 4, FLOAT32, 0),
                "recv is read-only"));
        cs.add(bad("scatter overlap on root",
                () -> c0().scatter(Buffer.of(b.big.asSlice(0, 32)), Buffer.of(b.big.asSlice(8, 16)), 4, FLOAT32, 0),
                        "scatter", "overlap"));

        // ---- send / recv ----
        cs.add(bad("send peer 2", () -> c0().send(Buffer.of(b.send), 4, FLOAT32, 2), "peer 2", "0 to 1"));
        cs.add(bad("send peer -1", () -> c0().send(Buffer.of(b.send), 4, FLOAT32, -1), "peer -1"));
        cs.add(bad("send null buffer", () -> c0().send(null, 4, FLOAT32, 1), "buffer must not be null"));
        cs.add(bad("send small buffer", () -> c0().send(Buffer.of(b.small), 4, FLOAT32, 1), "buffer holds 8",
                "needs 16"));
        cs.add(bad("send negative count", () -> c0().send(Buffer.of(b.send), -1, FLOAT32, 1),
                "count must not be negative"));
        cs.add(bad("send null type", () -> c0().send(Buffer.of(b.send), 4, null, 1), "type must not be null"));
        cs.add(bad("send double[] INT32", () -> c0().send(Buffer.of(b.doubles), 4, INT32, 1), "double[]", "INT32"));
        cs.add(bad("recv read-only buffer", () -> c0().recv(Buffer.of(b.recv.asReadOnly()), 4, FLOAT32, 1),
                "read-only"));
        cs.add(bad("recv read-only ByteBuffer", () -> c0().recv(Buffer.of(b.heap.clear().asReadOnlyBuffer()), 4,
                FLOAT32, 1),
                "read-only"));
        cs.add(bad("recv peer 9", () -> c0().recv(Buffer.of(b.recv), 4, FLOAT32, 9), "peer 9"));
        cs.add(bad("recv count overflow", () -> c0().recv(Buffer.of(b.recv), HUGE, FLOAT32, 1), "count " + HUGE));
        cs.add(new Case("send to self outside a group", INVALID_USAGE, () -> c0().send(Buffer.of(b.send), 4, FLOAT32,
                0),
                "this rank itself", "group"));
        cs.add(new Case("recv from self outside a group", INVALID_USAGE, () -> c1().recv(Buffer.of(b.recv), 4, FLOAT32,
                1),
                "this rank itself", "group"));

        // ---- split, groups ----
        cs.add(bad("split color -2", () -> c0().split(-2, 0), "color", "-2"));
        cs.add(new Case("groupEnd without groupStart", INVALID_USAGE, () -> c0().groupEnd(), "groupEnd",
                "groupStart"));
        return cs;
    }

    @TestFactory
    Stream<DynamicTest> badArgumentsAreRejectedAndNothingIsWritten() {
        return cases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> {
            boolean passed = false;
            try {
                b.fill();
                assertThrowsJccl(c.code(), c.call(), c.fragments());
                b.check(c.name());
                assertAllReduceWorks(comms, 5);
                passed = true;
            } finally {
                if (!passed) {
                    // A call that went through (or broke something) must not spoil the following cases.
                    CommAssertions.abortAll(comms);
                    comms = newComms();
                }
            }
        }));
    }

    @Test
    void segmentOfAClosedArenaIsRejected() {
        Arena closed = Arena.ofShared();
        MemorySegment gone = closed.allocate(64);
        closed.close();
        b.fill();
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allReduce(Buffer.of(gone), Buffer.of(b.recv), 4, FLOAT32, SUM),
                "send", "closed");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allReduce(Buffer.of(b.send), Buffer.of(gone), 4, FLOAT32, SUM),
                "recv", "closed");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().send(Buffer.of(gone), 4, FLOAT32, 1), "buffer", "closed");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allToAll(Buffer.of(gone), Buffer.of(b.big), 4, FLOAT32), "send",
                "closed");
        b.check("closed arena");
        assertAllReduceWorks(comms, 5);
    }

    @Test
    void segmentConfinedToAnotherThreadIsRejected() {
        b.fill();
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment mine = confined.allocate(64);
            fillPattern(mine, 99);
            assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allReduce(Buffer.of(mine), Buffer.of(b.recv), 4, FLOAT32,
                    SUM), "send",
                    "confined");
            assertThrowsJccl(INVALID_ARGUMENT, () -> c0().recv(Buffer.of(mine), 4, FLOAT32, 1), "buffer", "confined");
            assertThrowsJccl(INVALID_ARGUMENT, () -> c0().gather(Buffer.of(b.send), Buffer.of(mine), 4, FLOAT32, 0),
                    "recv", "confined");
            assertPattern(mine, 99, "confined segment");
        }
        b.check("confined");
        assertAllReduceWorks(comms, 5);
    }

    @Test
    void localCreationRejectsBadArguments() {
        assertThrowsJccl(INVALID_ARGUMENT, () -> Communicator.local(0), "n must be between 1 and", "got 0");
        assertThrowsJccl(INVALID_ARGUMENT, () -> Communicator.local(-5), "got -5");
        assertThrowsJccl(INVALID_ARGUMENT, () -> Communicator.local(2, null), "config must not be null");
    }

    @Test
    void initRejectsBadArgumentsBeforeConnecting() {
        // An id nobody serves: the checks must come before any attempt to reach it.
        io.jccl.UniqueId id = io.jccl.UniqueId.of(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 9), new byte[32]);
        assertThrowsJccl(INVALID_ARGUMENT, () -> Communicator.init(null, 0, 2), "id must not be null");
        assertThrowsJccl(INVALID_ARGUMENT, () -> Communicator.init(id, 0, 0), "size must be at least 1, got 0");
        assertThrowsJccl(INVALID_ARGUMENT, () -> Communicator.init(id, 2, 2), "rank 2", "0 to 1");
        assertThrowsJccl(INVALID_ARGUMENT, () -> Communicator.init(id, -1, 2), "rank -1");
        assertThrowsJccl(INVALID_ARGUMENT, () -> Communicator.init(id, 0, 2, null), "config must not be null");
    }

    /** The API allows null where a rank has nothing to read or write. */
    @Test
    void nullIsAcceptedWhereTheApiSaysSo() {
        MemorySegment sendSeg = arena.allocate(16);
        MemorySegment recvSeg = arena.allocate(64);
        for (int i = 0; i < 4; i++) {
            sendSeg.setAtIndex(ValueLayout.JAVA_INT, i, 10 + i);
        }
        // broadcast: send null on the non-root.
        recvSeg.fill((byte) 0);
        MemorySegment other = arena.allocate(16);
        awaitAll(List.of(c0().broadcast(Buffer.of(sendSeg), Buffer.of(other), 4, INT32, 0), c1().broadcast(null,
                Buffer.of(recvSeg), 4, INT32, 0)));
        assertThat(ints(recvSeg, 4)).containsExactly(10, 11, 12, 13);
        // reduce: recv null on the non-root.
        MemorySegment result = arena.allocate(16);
        awaitAll(List.of(c0().reduce(Buffer.of(sendSeg), Buffer.of(result), 4, INT32, SUM, 0),
                c1().reduce(Buffer.of(sendSeg), null, 4, INT32, SUM, 0)));
        assertThat(ints(result, 4)).containsExactly(20, 22, 24, 26);
        // gather: recv null on the non-root.
        MemorySegment gathered = arena.allocate(32);
        awaitAll(List.of(c0().gather(Buffer.of(sendSeg), null, 4, INT32, 1), c1().gather(Buffer.of(sendSeg),
                Buffer.of(gathered), 4, INT32, 1)));
        assertThat(ints(gathered, 8)).containsExactly(10, 11, 12, 13, 10, 11, 12, 13);
        // scatter: send null on the non-root.
        MemorySegment part = arena.allocate(8);
        MemorySegment rootPart = arena.allocate(8);
        awaitAll(List.of(c0().scatter(null, Buffer.of(part), 2, INT32, 1), c1().scatter(Buffer.of(sendSeg),
                Buffer.of(rootPart), 2, INT32, 1)));
        assertThat(ints(part, 2)).containsExactly(10, 11);
        assertThat(ints(rootPart, 2)).containsExactly(12, 13);
        // count 0: every buffer may be null.
        List<CollectiveFuture> zero = new ArrayList<>();
        for (Communicator c : comms) {
            zero.add(c.allReduce(null, null, 0, FLOAT32, SUM));
            zero.add(c.allGather(null, null, 0, FLOAT32));
            zero.add(c.allToAll(null, null, 0, FLOAT32));
            zero.add(c.allToAllv(null, new long[2], new long[2], null, new long[2], new long[2], FLOAT32));
            zero.add(c.broadcast(null, null, 0, FLOAT32, 1));
        }
        awaitAll(zero);
        // Read-only is fine where nothing is written: the send side, and an empty recv.
        MemorySegment sum = arena.allocate(16);
        awaitAll(List.of(c0().allReduce(Buffer.of(sendSeg.asReadOnly()), Buffer.of(sum), 4, INT32, SUM),
                c1().allReduce(Buffer.of(sendSeg), Buffer.of(arena.allocate(16)), 4, INT32, SUM)));
        assertThat(ints(sum, 4)).containsExactly(20, 22, 24, 26);
        // Displacements of empty blocks do not matter.
        awaitAll(List.of(
                c0().allToAllv(Buffer.of(sendSeg), new long[] {1, 0}, new long[] {0, 1000}, Buffer.of(recvSeg),
                        new long[] {1, 0},
                        new long[] {0, 1000}, INT32),
                c1().allToAllv(Buffer.of(sendSeg), new long[] {0, 1}, new long[] {1000, 1},
                        Buffer.of(recvSeg.asSlice(32)),
                        new long[] {0, 1}, new long[] {1000, 0}, INT32)));
        assertThat(ints(recvSeg, 1)).containsExactly(10);
        assertThat(ints(recvSeg.asSlice(32), 1)).containsExactly(11);
        assertAllReduceWorks(comms, 5);
    }

    private static int[] ints(MemorySegment s, int n) {
        return Arrays.copyOf(s.toArray(ValueLayout.JAVA_INT), n);
    }

    @Test
    void everyOperationOnAClosedCommunicatorIsInvalidUsage() {
        Communicator c = Communicator.local(1).get(0);
        c.close();
        c.close();   // idempotent
        assertRefusedEverywhere(c, "closed");
    }

    @Test
    void everyOperationOnAnAbortedCommunicatorIsInvalidUsage() {
        Communicator c = Communicator.local(1).get(0);
        c.abort();
        assertRefusedEverywhere(c, "aborted");
        c.close();
    }

    private static void assertRefusedEverywhere(Communicator c, String why) {
        b.fill();
        List<CommAssertions.Call> calls = List.of(
                () -> c.allReduce(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32, SUM),
                () -> c.allReduce(Buffer.of(b.floats), Buffer.of(b.floats2), 4, FLOAT32, SUM),
                () -> c.broadcast(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32, 0),
                () -> c.broadcast(Buffer.of(b.recv), 4, FLOAT32, 0),
                () -> c.reduce(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32, SUM, 0),
                () -> c.allGather(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32),
                () -> c.reduceScatter(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32, SUM),
                () -> c.allToAll(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32),
                () -> c.allToAllv(Buffer.of(b.send), new long[] {1}, new long[] {0}, Buffer.of(b.recv), new long[] {1},
                        new long[] {0},
                        FLOAT32),
                () -> c.gather(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32, 0),
                () -> c.scatter(Buffer.of(b.send), Buffer.of(b.recv), 4, FLOAT32, 0),
                () -> c.send(Buffer.of(b.send), 4, FLOAT32, 0),
                () -> c.recv(Buffer.of(b.direct.clear()), 4, FLOAT32, 0),
                c::barrier,
                () -> c.split(0, 0),
                c::groupStart);
        for (CommAssertions.Call call : calls) {
            assertThrowsJccl(INVALID_USAGE, call, why);
        }
        b.check("use after " + why);
    }
}
