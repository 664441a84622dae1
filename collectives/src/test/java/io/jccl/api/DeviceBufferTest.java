package io.jccl.api;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.ErrorCode;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

import static io.jccl.api.CommAssertions.abortAll;
import static io.jccl.api.CommAssertions.assertThrowsJccl;
import static io.jccl.api.CommAssertions.awaitAll;
import static io.jccl.api.CommAssertions.awaitFailure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The collectives' device path against {@link FakeDevice} (scrambled native memory): results are exact, in place
 * works through the same buffer or a slice, the copies happen when the operation runs (issue order), all-to-allv
 * leaves the bytes between its blocks alone, every staging lease comes back, a failed copy fails the operation on
 * this rank with the domain and call named and its peers with REMOTE_ERROR, and bad buffers are refused at once.
 * Every collective on a real domain (the HIP stub): gpu-memory's {@code DeviceCollectivesTest}.
 */
class DeviceBufferTest {
    private static final int N = 3;
    private FakeDevice device;
    private List<Communicator> comms;

    @BeforeEach
    void setUp() {
        device = new FakeDevice();
        comms = Communicator.local(N);
    }

    @AfterEach
    void tearDown() {
        abortAll(comms);
        device.close();
    }

    private static int[] ramp(int rank, int count) {
        int[] v = new int[count];
        for (int i = 0; i < count; i++) {
            v[i] = (rank + 1) * 1000 + i;
        }
        return v;
    }

    /** @return one of what {@code make} makes of each rank, in rank order */
    private static <T> List<T> perRank(IntFunction<T> make) {
        return IntStream.range(0, N).mapToObj(make).toList();
    }

    /** @return the futures of {@code call} issued on every rank, in rank order */
    private static List<CollectiveFuture> issueOnEveryRank(IntFunction<CollectiveFuture> call) {
        return perRank(call);
    }

    private static int[] filled(int count, int value) {
        int[] v = new int[count];
        java.util.Arrays.fill(v, value);
        return v;
    }

    @Test
    void allReduceOutOfPlaceAndInPlace() {
        int count = 1000;
        List<FakeDevice.Memory> send = perRank(r -> device.allocateInts(ramp(r, count)));
        List<FakeDevice.Memory> recv = perRank(r -> device.allocate(4L * count));
        awaitAll(issueOnEveryRank(r -> comms.get(r).allReduce(Buffer.of(send.get(r)), Buffer.of(recv.get(r)), count,
                DataType.INT32, ReduceOp.SUM)));
        for (int r = 0; r < N; r++) {
            int[] got = recv.get(r).ints();
            for (int i = 0; i < count; i++) {
                assertThat(got[i]).as("rank %d element %d", r, i).isEqualTo(6000 + 3 * i);
            }
            assertThat(send.get(r).ints()).as("send untouched").isEqualTo(ramp(r, count));
        }
        awaitAll(issueOnEveryRank(r -> comms.get(r).allReduce(Buffer.of(send.get(r)), Buffer.of(send.get(r)), count,
                DataType.INT32, ReduceOp.MAX)));
        for (int r = 0; r < N; r++) {
            assertThat(send.get(r).ints()).as("in place, rank %d", r).isEqualTo(ramp(N - 1, count));
        }
        assertThat(device.released.get()).as("every staging lease returned").isEqualTo(device.acquired.get());
        // out of place: send and recv, 2 leases; in place: 1 lease per rank
        assertThat(device.acquired.get()).isEqualTo(N * 2 + N);
    }

    @Test
    void inPlaceThroughSlices() {
        int count = 5;
        List<CollectiveFuture> fs = new ArrayList<>();
        List<FakeDevice.Memory> gathered = new ArrayList<>();
        List<FakeDevice.Memory> scattered = perRank(r -> device.allocateInts(ramp(r, count * N)));
        for (int r = 0; r < N; r++) {
            int[] mine = new int[count * N];
            System.arraycopy(ramp(r, count), 0, mine, r * count, count);
            FakeDevice.Memory g = device.allocateInts(mine);
            gathered.add(g);
            DeviceBuffer sendSlice = g.slice(4L * count * r, 4L * count);
            fs.add(comms.get(r).allGather(sendSlice, g, count, DataType.INT32));
            FakeDevice.Memory s = scattered.get(r);
            fs.add(comms.get(r).reduceScatter(s, Buffer.of(s.slice(4L * count * r, 4L * count)), count, DataType.INT32,
                    ReduceOp.SUM));
        }
        awaitAll(fs);
        for (int r = 0; r < N; r++) {
            int[] g = gathered.get(r).ints();
            int[] s = scattered.get(r).ints();
            for (int q = 0; q < N; q++) {
                for (int i = 0; i < count; i++) {
                    assertThat(g[q * count + i]).isEqualTo((q + 1) * 1000 + i);
                }
            }
            for (int i = 0; i < count; i++) {
                assertThat(s[r * count + i]).as("rank %d's block", r).isEqualTo(6000 + 3 * (r * count + i));
            }
        }
        assertThat(device.acquired.get()).as("one lease per in-place call").isEqualTo(2 * N);
    }

    @Test
    void copiesRunWhenTheOperationRunsNotWhenIssued() {
        int count = 64;
        List<FakeDevice.Memory> bufs = perRank(r -> device.allocateInts(filled(count, 1)));
        List<CollectiveFuture> fs = new ArrayList<>();
        for (int round = 0; round < 4; round++) {   // queued back to back: each must see the previous sum
            fs.addAll(issueOnEveryRank(r -> comms.get(r).allReduce(Buffer.of(bufs.get(r)), Buffer.of(bufs.get(r)),
                    count, DataType.INT32, ReduceOp.SUM)));
        }
        awaitAll(fs);
        for (int r = 0; r < N; r++) {
            assertThat(bufs.get(r).ints()).containsOnly(81);   // 3^4
        }
    }

    @Test
    void allToAllvCopiesBackOnlyTheReceivedBlocks() {
        long[] counts = new long[N];
        long[] displs = new long[N];
        for (int j = 0; j < N; j++) {
            counts[j] = 2;
            displs[j] = 3L * j;   // a gap of one element after each block
        }
        List<FakeDevice.Memory> send = perRank(r -> device.allocateInts(ramp(r, 3 * N)));
        List<FakeDevice.Memory> recv = perRank(r -> device.allocateInts(filled(3 * N, -7)));
        awaitAll(issueOnEveryRank(r -> comms.get(r).allToAllv(send.get(r), counts, displs, recv.get(r), counts, displs,
                DataType.INT32)));
        for (int r = 0; r < N; r++) {
            int[] got = recv.get(r).ints();
            for (int j = 0; j < N; j++) {
                assertThat(got[3 * j]).isEqualTo((j + 1) * 1000 + 3 * r);
                assertThat(got[3 * j + 1]).isEqualTo((j + 1) * 1000 + 3 * r + 1);
                assertThat(got[3 * j + 2]).as("gap after block %d", j).isEqualTo(-7);
            }
        }
    }

    @Test
    void sendAndReceiveInAGroupIncludingSelf() {
        int count = 17;
        List<FakeDevice.Memory> send = perRank(r -> device.allocateInts(ramp(r, count)));
        List<FakeDevice.Memory> recv = perRank(r -> device.allocate(4L * count));
        List<FakeDevice.Memory> self = perRank(r -> device.allocate(4L * count));
        awaitAll(issueOnEveryRank(rank -> comms.get(rank).group(c -> {
            c.send(send.get(rank), count, DataType.INT32, (rank + 1) % N);
            c.recv(recv.get(rank), count, DataType.INT32, (rank + N - 1) % N);
            c.send(send.get(rank), count, DataType.INT32, rank);
            c.recv(self.get(rank), count, DataType.INT32, rank);
        })));
        for (int r = 0; r < N; r++) {
            assertThat(recv.get(r).ints()).isEqualTo(ramp((r + N - 1) % N, count));
            assertThat(self.get(r).ints()).isEqualTo(ramp(r, count));
        }
        assertThat(device.released.get()).isEqualTo(device.acquired.get());
    }

    @Test
    void aFailedCopyToHostFailsTheOperationAndTellsThePeers() {
        int count = 32;
        List<FakeDevice.Memory> bufs = perRank(r -> device.allocate(4L * count));
        device.toHostFailsAfter.set(0);   // the first staging copy of whichever rank starts first
        List<CollectiveFuture> fs = issueOnEveryRank(r -> comms.get(r).allReduce(Buffer.of(bufs.get(r)),
                Buffer.of(bufs.get(r)), count, DataType.INT32, ReduceOp.SUM));
        int local = 0;
        for (CollectiveFuture f : fs) {
            io.jccl.JcclException e = awaitFailure(f);
            if (e.code() == ErrorCode.SYSTEM_ERROR) {
                local++;
                assertThat(e.detail()).contains("allReduce(count=32", "copying send (128 bytes) from fake memory",
                        "fakeMemcpy(DeviceToHost) failed: injected");
            } else {
                assertThat(e.code()).isEqualTo(ErrorCode.REMOTE_ERROR);
                assertThat(e.detail()).contains("fakeMemcpy(DeviceToHost)");
            }
        }
        assertThat(local).isEqualTo(1);
        assertThat(device.released.get()).isEqualTo(device.acquired.get());
    }

    @Test
    void aFailedCopyBackFailsTheOperation() {
        int count = 8;
        device.fromHostFailsAfter.set(0);
        List<FakeDevice.Memory> bufs = perRank(r -> device.allocate(4L * count));
        List<CollectiveFuture> fs = issueOnEveryRank(r -> comms.get(r).allReduce(bufs.get(r), bufs.get(r), count,
                DataType.INT32, ReduceOp.SUM));
        boolean sawLocal = false;
        for (CollectiveFuture f : fs) {
            try {
                f.await(CommAssertions.HANG);
            } catch (io.jccl.JcclException e) {
                if (e.code() == ErrorCode.SYSTEM_ERROR) {
                    sawLocal = true;
                    assertThat(e.detail()).contains("copying recv (32 bytes) from host staging into fake memory",
                            "fakeMemcpy(HostToDevice)");
                }
            }
        }
        assertThat(sawLocal).isTrue();
        assertThat(device.released.get()).isEqualTo(device.acquired.get());
    }

    @Test
    void badDeviceBuffersAreRefusedAtOnce() {
        Communicator c = comms.get(0);
        FakeDevice.Memory small = device.allocate(16);
        FakeDevice.Memory big = device.allocate(64);
        assertThrowsJccl(ErrorCode.INVALID_ARGUMENT,
                () -> c.allReduce(small, big, 8, DataType.INT32, ReduceOp.SUM), "send holds 16 bytes",
                "needs 32");
        assertThrowsJccl(ErrorCode.INVALID_ARGUMENT,
                () -> c.allReduce(Buffer.of(big.slice(4, 32)), Buffer.of(big.slice(0, 32)), 8, DataType.INT32,
                        ReduceOp.SUM),
                "overlap but send is not at the in-place position");
        assertThrowsJccl(ErrorCode.INVALID_ARGUMENT, () -> c.allToAll(big, Buffer.of(big.slice(8, 48)), 4,
                DataType.INT8),
                "cannot run in place");
        assertThrowsJccl(ErrorCode.INVALID_ARGUMENT, () -> big.slice(60, 8), "outside a buffer of 64 bytes");
        small.freed = true;
        assertThrowsJccl(ErrorCode.INVALID_ARGUMENT,
                () -> c.allReduce(small, big, 1, DataType.INT32, ReduceOp.SUM), "send is a fake buffer that was "
                        + "already freed");
        assertThat(device.acquired.get()).as("nothing staged").isZero();
        CommAssertions.assertAllReduceWorks(comms, 10);
    }

    @Test
    void hostAddressableBuffersAreUsedDirectly() {
        try (Arena arena = Arena.ofShared()) {
            List<MemorySegment> mem = perRank(r -> arena.allocate(40).copyFrom(MemorySegment.ofArray(ramp(r, 10))));
            awaitAll(issueOnEveryRank(r -> comms.get(r).allReduce(Buffer.of(device.host(mem.get(r))),
                    Buffer.of(device.host(mem.get(r))), 10, DataType.INT32, ReduceOp.SUM)));
            for (int r = 0; r < N; r++) {
                assertThat(mem.get(r).toArray(java.lang.foreign.ValueLayout.JAVA_INT)).containsExactly(
                        6000, 6003, 6006, 6009, 6012, 6015, 6018, 6021, 6024, 6027);
            }
        }
        assertThat(device.acquired.get()).as("no staging for host memory").isZero();
    }
}
