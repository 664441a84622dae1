package io.jccl.api;

import io.jccl.Buffer;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DeviceBuffer;
import io.jccl.HostBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

import static io.jccl.DataType.FLOAT16;
import static io.jccl.DataType.FLOAT32;
import static io.jccl.DataType.FLOAT64;
import static io.jccl.DataType.INT32;
import static io.jccl.ErrorCode.INVALID_ARGUMENT;
import static io.jccl.ReduceOp.SUM;
import static io.jccl.api.CommAssertions.assertThrowsJccl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link Buffer} factories, and the argument rules every operation is checked by (one table, keyed by
 * operation): each error names the parameter and what was wrong. Nothing here reaches a peer: every bad call is
 * refused before it is queued, and the good ones run on one rank only where they need no peer.
 */
class BufferRulesTest {
    private static List<Communicator> comms;
    private static FakeDevice device;

    @BeforeAll
    static void setUp() {
        comms = Communicator.local(2, CommConfig.builder().opTimeout(Duration.ofSeconds(20)).build());
        device = new FakeDevice();
    }

    @AfterAll
    static void tearDown() {
        CommAssertions.abortAll(comms);
        device.close();
    }

    private static Communicator c0() {
        return comms.get(0);
    }

    @Test
    void factoriesRememberWhatTheBufferWasMadeFrom() {
        HostBuffer f = Buffer.of(new float[5]);
        assertThat(f.byteSize()).isEqualTo(20);
        assertThat(f.source()).isEqualTo("float[]");
        assertThat(f.elementBytes()).isEqualTo(4);
        assertThat(Buffer.of(new short[3]).elementBytes()).isEqualTo(2);
        assertThat(Buffer.of(new int[3]).elementBytes()).isEqualTo(4);
        assertThat(Buffer.of(new long[3]).elementBytes()).isEqualTo(8);
        assertThat(Buffer.of(new double[3]).byteSize()).isEqualTo(24);
        // Bytes, ByteBuffers and segments carry every type.
        assertThat(Buffer.of(new byte[7]).elementBytes()).isZero();
        assertThat(Buffer.of(MemorySegment.ofArray(new float[2])).elementBytes()).isZero();
        ByteBuffer window = ByteBuffer.allocateDirect(64).position(8).limit(24);
        HostBuffer bb = Buffer.of(window);
        assertThat(bb.byteSize()).as("position to limit").isEqualTo(16);
        assertThat(bb.elementBytes()).isZero();
        assertThat(bb.source()).isEqualTo("ByteBuffer");
    }

    @Test
    void nullGivesNullSoThatAMissingBufferCanBePassedThrough() {
        assertThat(Buffer.of((float[]) null)).isNull();
        assertThat(Buffer.of((byte[]) null)).isNull();
        assertThat(Buffer.of((ByteBuffer) null)).isNull();
        assertThat(Buffer.of((MemorySegment) null)).isNull();
        assertThat(Buffer.of((DeviceBuffer) null)).isNull();
    }

    @Test
    void aDeviceBufferIsABufferItself() {
        FakeDevice.Memory m = device.allocate(32);
        assertThat(Buffer.of(m)).isSameAs(m);
        assertThat(m.slice(8, 8)).isInstanceOf(DeviceBuffer.class);
    }

    @Test
    void aSliceKeepsTheElementSizeAndChecksItsRange() {
        HostBuffer slice = Buffer.of(new double[4]).slice(8, 16);
        assertThat(slice.byteSize()).isEqualTo(16);
        assertThat(slice.elementBytes()).isEqualTo(8);
        assertThrowsJccl(INVALID_ARGUMENT, () -> Buffer.of(new double[4]).slice(24, 16), "slice", "offset 24",
                "size 16", "buffer of 32 bytes");
        assertThrowsJccl(INVALID_ARGUMENT, () -> Buffer.of(new double[4]).slice(-1, 1), "offset -1");
    }

    @Test
    void anArrayMustHaveTheElementSizeOfTheType() {
        Buffer floats = Buffer.of(new float[4]);
        Buffer doubles = Buffer.of(new double[4]);
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allReduce(floats, doubles, 4, FLOAT64, SUM),
                "send is a float[] (4-byte elements) but type FLOAT64 has 8-byte elements");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allReduce(doubles, floats, 4, FLOAT64, SUM),
                "recv is a float[]", "FLOAT64");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().send(Buffer.of(new int[4]), 4, FLOAT16, 1),
                "buffer is a int[] (4-byte elements) but type FLOAT16 has 2-byte elements");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allToAllv(Buffer.of(new long[2]), new long[2], new long[2],
                Buffer.of(new long[2]), new long[2], new long[2], FLOAT32), "send is a long[]", "FLOAT32");
        // Only the size matters: an int[] carries FLOAT32, a byte[] anything (one rank runs it alone).
        int[] bits = {Float.floatToIntBits(1.5f), Float.floatToIntBits(-2f)};
        byte[] bytes = new byte[8];
        List<Communicator> one = Communicator.local(1);
        try {
            one.get(0).allReduce(Buffer.of(bits), Buffer.of(bytes), 2, FLOAT32, SUM).await();
        } finally {
            CommAssertions.abortAll(one);
        }
        assertThat(MemorySegment.ofArray(bytes).toArray(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED))
                .containsExactly(1.5f, -2f);
    }

    @Test
    void buffersMustHoldWhatTheOperationNeeds() {
        Buffer small = Buffer.of(new float[2]);
        Buffer four = Buffer.of(new float[4]);
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allReduce(small, four, 4, FLOAT32, SUM),
                "send holds 8 bytes but the operation needs 16");
        // all-gather's receive buffer holds a block per rank.
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allGather(four, four, 4, FLOAT32),
                "recv holds 16 bytes but the operation needs 32");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().reduceScatter(four, small, 4, FLOAT32, SUM),
                "send holds 16 bytes but the operation needs 32");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().recv(small, 4, FLOAT32, 1),
                "buffer holds 8 bytes but the operation needs 16");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allReduce(four, four, -1, FLOAT32, SUM),
                "count must not be negative, got -1");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().gather(four, four, -2, FLOAT32, 0),
                "sendCount must not be negative, got -2");
        // A rank that does not use a buffer may pass none: rank 0 is not scatter's root, so its send is ignored.
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().scatter(null, null, 1, FLOAT32, 1), "recv must not be null");
    }

    @Test
    void rootsAndPeersMustBeRanks() {
        Buffer four = Buffer.of(new float[4]);
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().broadcast(four, 4, FLOAT32, 2),
                "root 2 is out of range: the communicator has ranks 0 to 1");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().reduce(four, four, 4, FLOAT32, SUM, -1), "root -1");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().send(four, 4, FLOAT32, 5), "peer 5 is out of range");
    }

    @Test
    void hostAndDeviceBuffersAreNotMixedInOneCall() {
        FakeDevice.Memory d = device.allocate(16);
        Buffer host = Buffer.of(new float[4]);
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allReduce(host, d, 4, FLOAT32, SUM),
                "allReduce: send is host memory (float[]) but recv is a fake device buffer; pass both as "
                        + "DeviceBuffers or both as host memory");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allGather(d, Buffer.of(new byte[32]), 4, INT32),
                "allGather: send is a fake device buffer but recv is host memory (byte[])");
        assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allToAllv(d, new long[2], new long[2], host, new long[2],
                new long[2], FLOAT32), "allToAllv: send is a fake device buffer but recv is host memory");
    }

    @Test
    void inPlaceRulesHoldForEveryKindOfBuffer() {
        try (Arena arena = Arena.ofShared()) {
            HostBuffer all = Buffer.of(arena.allocate(32));
            // all-gather in place: send is block `rank` of recv; any other overlap is refused.
            assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allGather(all.slice(4, 16), all, 4, FLOAT32),
                    "allGather: send and recv overlap but send is not at the in-place position (recv + 0 bytes)");
            assertThrowsJccl(INVALID_ARGUMENT, () -> c0().allToAll(all.slice(0, 16), all.slice(8, 16), 2, FLOAT32),
                    "allToAll cannot run in place: send and recv overlap");
        }
    }
}
