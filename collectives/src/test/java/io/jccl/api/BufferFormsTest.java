package io.jccl.api;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.check.CollectiveCalls;
import io.jccl.check.CollectiveCheck;
import io.jccl.plan.OpKind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Every collective (and send/recv) through a {@link Buffer} made by {@code Buffer.of} of each heap-array kind and
 * of direct and heap ByteBuffers, with exact results checked against {@link CollectiveCheck}; ByteBuffers use their
 * position-to-limit window, whose surroundings must stay untouched; in place where an array can express it
 * (all-reduce, broadcast, reduce).
 */
class BufferFormsTest {
    private static final int N = 3;
    private static final long COUNT = 1003;
    private static final int PAD = 13;   // bytes around a ByteBuffer's window, odd so that the window is unaligned
    private static List<Communicator> comms;

    /**
     * One way of passing buffers.
     *
     * @param name      for the test name
     * @param bufClass  the array or ByteBuffer class
     * @param type      the element type used with it
     * @param alloc     makes a buffer of a number of bytes
     */
    record Form(String name, Class<?> bufClass, DataType type, IntFunction<Object> alloc) {
        MemorySegment view(Object buffer) {
            return Views.of(buffer).segment();
        }

        /** For ByteBuffers: the bytes around the window must keep their fill. */
        void checkSurroundings(Object buffer, String what) {
            if (buffer instanceof ByteBuffer b) {
                assertThat(b.position()).as("%s position", what).isEqualTo(PAD);
                ByteBuffer all = b.duplicate().clear();
                for (int i = 0; i < all.capacity(); i++) {
                    if ((i < PAD || i >= b.limit()) && all.get(i) != (byte) 0xEE) {
                        fail(what + ": byte " + i + " outside the ByteBuffer's window was written");
                    }
                }
            }
        }
    }

    private static ByteBuffer window(ByteBuffer b, int bytes) {
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, (byte) 0xEE);
        }
        return b.limit(PAD + bytes).position(PAD);
    }

    static List<Form> forms() {
        List<Form> fs = new ArrayList<>();
        for (DataType t : new DataType[] {DataType.INT8, DataType.UINT8, DataType.FLOAT8_E4M3, DataType.FLOAT32}) {
            fs.add(new Form("byte[]", byte[].class, t, byte[]::new));
        }
        for (DataType t : new DataType[] {DataType.FLOAT16, DataType.BFLOAT16}) {
            fs.add(new Form("short[]", short[].class, t, b -> new short[b / 2]));
        }
        for (DataType t : new DataType[] {DataType.INT32, DataType.UINT32}) {
            fs.add(new Form("int[]", int[].class, t, b -> new int[b / 4]));
        }
        for (DataType t : new DataType[] {DataType.INT64, DataType.UINT64}) {
            fs.add(new Form("long[]", long[].class, t, b -> new long[b / 8]));
        }
        fs.add(new Form("float[]", float[].class, DataType.FLOAT32, b -> new float[b / 4]));
        fs.add(new Form("double[]", double[].class, DataType.FLOAT64, b -> new double[b / 8]));
        for (DataType t : new DataType[] {DataType.FLOAT32, DataType.FLOAT16, DataType.INT64}) {
            fs.add(new Form("direct ByteBuffer", ByteBuffer.class, t,
                    b -> window(ByteBuffer.allocateDirect(b + 2 * PAD), b)));
        }
        for (DataType t : new DataType[] {DataType.BFLOAT16, DataType.FLOAT64, DataType.UINT8}) {
            fs.add(new Form("heap ByteBuffer", ByteBuffer.class, t, b -> window(ByteBuffer.allocate(b + 2 * PAD), b)));
        }
        return fs;
    }

    static final OpKind[] KINDS = {OpKind.ALL_REDUCE, OpKind.BROADCAST, OpKind.REDUCE, OpKind.ALL_GATHER,
        OpKind.REDUCE_SCATTER, OpKind.ALL_TO_ALL, OpKind.ALL_TO_ALLV, OpKind.GATHER, OpKind.SCATTER, OpKind.P2P};

    @BeforeAll
    static void setUp() {
        comms = Communicator.local(N, CommConfig.builder().opTimeout(Duration.ofSeconds(20)).build());
    }

    @AfterAll
    static void tearDown() {
        CommAssertions.abortAll(comms);
    }

    @TestFactory
    Stream<DynamicTest> everyCollectiveThroughEveryForm() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Form f : forms()) {
            for (OpKind kind : KINDS) {
                tests.add(DynamicTest.dynamicTest(f.name() + " " + f.type() + " " + kind.apiName(),
                        () -> run(f, kind, false)));
            }
            for (OpKind kind : new OpKind[] {OpKind.ALL_REDUCE, OpKind.BROADCAST, OpKind.REDUCE}) {
                tests.add(DynamicTest.dynamicTest(f.name() + " " + f.type() + " in-place " + kind.apiName(),
                        () -> run(f, kind, true)));
            }
        }
        return tests.stream();
    }

    private static boolean reducing(OpKind kind) {
        return kind == OpKind.ALL_REDUCE || kind == OpKind.REDUCE || kind == OpKind.REDUCE_SCATTER;
    }

    private static void run(Form f, OpKind kind, boolean inPlace) {
        DataType type = f.type();
        int es = type.sizeBytes();
        long count = kind == OpKind.ALL_REDUCE || kind == OpKind.BROADCAST || kind == OpKind.REDUCE
                || kind == OpKind.P2P ? COUNT : COUNT / N;
        int root = 1;
        ReduceOp.Kind op = reducing(kind) ? (type.isInteger() ? ReduceOp.Kind.PRE_MUL_SUM : ReduceOp.Kind.SUM) : null;
        CollectiveCheck check = new CollectiveCheck(kind, type, op, N, count, root, kind.ordinal() * 31L + es);
        Object[] send = new Object[N];
        Object[] recv = new Object[N];
        for (int r = 0; r < N; r++) {
            int sendBytes = (int) (check.sendElements(r) * es);
            int recvBytes = (int) (check.recvElements(r) * es);
            if (inPlace && (kind != OpKind.REDUCE || r == root) && (kind != OpKind.BROADCAST || r == root)) {
                send[r] = f.alloc().apply(Math.max(sendBytes, recvBytes));
                recv[r] = send[r];
            } else {
                send[r] = sendBytes > 0 ? f.alloc().apply(sendBytes) : null;
                recv[r] = recvBytes > 0 ? f.alloc().apply(recvBytes) : null;
                if (recv[r] != null) {
                    f.view(recv[r]).fill((byte) 0xCD);
                }
            }
            if (send[r] != null) {
                check.fillSend(r, f.view(send[r]));
            }
        }
        List<CollectiveFuture> fs = new ArrayList<>();
        for (int r = 0; r < N; r++) {
            fs.add(CollectiveCalls.issue(comms.get(r), check, buffer(send[r]), buffer(recv[r])));
        }
        CommAssertions.awaitAll(fs);
        for (int r = 0; r < N; r++) {
            if (check.recvElements(r) > 0) {
                String mismatch = check.firstMismatch(r, f.view(recv[r]));
                assertThat(mismatch).as("rank %d result", r).isNull();
            }
            if (send[r] != null) {
                f.checkSurroundings(send[r], "rank " + r + " send");
            }
            if (recv[r] != null) {
                f.checkSurroundings(recv[r], "rank " + r + " recv");
            }
        }
    }

    /** The buffer {@code Buffer.of} makes of an array or ByteBuffer (null for null), by its runtime type. */
    private static Buffer buffer(Object o) {
        return o == null ? null : Views.of(o).buffer();
    }

    /**
     * An array or ByteBuffer as the test reads and writes it (the JDK's own segment of it, independent of the code
     * under test) and as {@code Buffer.of} passes it, chosen by one switch on its runtime type.
     */
    private record Views(MemorySegment segment, Buffer buffer) {
        static Views of(Object o) {
            return switch (o) {
                case byte[] a -> new Views(MemorySegment.ofArray(a), Buffer.of(a));
                case short[] a -> new Views(MemorySegment.ofArray(a), Buffer.of(a));
                case int[] a -> new Views(MemorySegment.ofArray(a), Buffer.of(a));
                case long[] a -> new Views(MemorySegment.ofArray(a), Buffer.of(a));
                case float[] a -> new Views(MemorySegment.ofArray(a), Buffer.of(a));
                case double[] a -> new Views(MemorySegment.ofArray(a), Buffer.of(a));
                case ByteBuffer b -> new Views(MemorySegment.ofBuffer(b), Buffer.of(b));
                default -> throw new IllegalArgumentException(o.getClass().toString());
            };
        }
    }

    @TestFactory
    Stream<DynamicTest> arrayFormsReadAndWriteTheWholeArrayInNativeOrder() {
        // A float[] all-reduce gives the float sums, element by element (the array is not reinterpreted).
        return Stream.of(DynamicTest.dynamicTest("float[] sums", () -> {
            float[][] in = new float[N][];
            float[][] out = new float[N][];
            List<CollectiveFuture> fs = new ArrayList<>();
            for (int r = 0; r < N; r++) {
                in[r] = new float[] {1.5f * r, -2f, r, 1e-3f};
                out[r] = new float[4];
                fs.add(comms.get(r).allReduce(Buffer.of(in[r]), Buffer.of(out[r]), 4, DataType.FLOAT32, ReduceOp.SUM));
            }
            CommAssertions.awaitAll(fs);
            for (int r = 0; r < N; r++) {
                assertThat(out[r]).containsExactly(4.5f, -6f, 3f, 3e-3f);
            }
        }), DynamicTest.dynamicTest("double[] max in place", () -> {
            double[][] io = new double[N][];
            List<CollectiveFuture> fs = new ArrayList<>();
            for (int r = 0; r < N; r++) {
                io[r] = new double[] {r, -r, Double.MAX_VALUE / (r + 1)};
                fs.add(comms.get(r).allReduce(Buffer.of(io[r]), Buffer.of(io[r]), 3, DataType.FLOAT64, ReduceOp.MAX));
            }
            CommAssertions.awaitAll(fs);
            for (int r = 0; r < N; r++) {
                assertThat(io[r]).containsExactly(N - 1, 0, Double.MAX_VALUE);
            }
        }), DynamicTest.dynamicTest("long[] to MemorySegment reinterpretation is native order", () -> {
            long[] a = {0x0102030405060708L};
            assertThat(MemorySegment.ofArray(a).get(ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(a[0]);
        }));
    }
}
