package io.jccl.memory;

import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.check.CollectiveCalls;
import io.jccl.check.CollectiveCheck;
import io.jccl.memory.hip.HipMemoryDomainProvider;
import io.jccl.memory.hip.HipStub;
import io.jccl.plan.OpKind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Every collective, and send/receive, with HIP device buffers (the stub's scrambled device memory) on 2, 3 and 4
 * in-JVM ranks whose domains sit on two devices, sizes 0 to 64 Ki elements, in place and out of place, results checked exactly against
 * {@link CollectiveCheck} and 64 guard bytes of device memory on each side of every buffer checked unchanged
 * (the copy back writes only the output's range). Also over the TCP transport, with host-domain buffers (used
 * directly, no staging), in issue order, without staging allocations once warm, and with failing device copies.
 */
class DeviceCollectivesTest {
    private static final long GUARD = 64;
    private static final byte GUARD_BYTE = (byte) 0x6B;
    private static final OpKind[] KINDS = {OpKind.ALL_REDUCE, OpKind.BROADCAST, OpKind.REDUCE, OpKind.ALL_GATHER,
        OpKind.REDUCE_SCATTER, OpKind.ALL_TO_ALL, OpKind.ALL_TO_ALLV, OpKind.GATHER, OpKind.SCATTER, OpKind.P2P};
    private static final long[] SIZES = {0, 1, 1023, (64 << 10) + 3};
    private static final Map<String, List<Communicator>> COMMS = new HashMap<>();
    private static final Map<Integer, List<MemoryDomain>> DOMAINS = new HashMap<>();

    private static synchronized List<Communicator> comms(int n, String transport) {
        return COMMS.computeIfAbsent(n + "/" + transport, k -> Communicator.local(n, CommConfig.builder()
                .transport(transport).opTimeout(Duration.ofSeconds(60)).build()));
    }

    /** One HIP domain per rank, on device rank % 2. */
    private static synchronized List<MemoryDomain> hipDomains(int n) {
        return DOMAINS.computeIfAbsent(n, k -> {
            List<MemoryDomain> l = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                l.add(new HipMemoryDomainProvider().open(r % HipStub.DEVICES));
            }
            return l;
        });
    }

    @AfterAll
    static void closeAll() {
        COMMS.values().forEach(l -> l.forEach(Communicator::close));
        DOMAINS.values().forEach(l -> l.forEach(MemoryDomain::close));
        HipStub.clearFailures();
    }

    static boolean supportsInPlace(OpKind kind) {
        return kind != OpKind.ALL_TO_ALL && kind != OpKind.ALL_TO_ALLV && kind != OpKind.P2P;
    }

    /** @return {@code reduction} for an operation that reduces, null for one that only moves data */
    static ReduceOp.Kind reductionOf(OpKind kind, ReduceOp.Kind reduction) {
        return kind == OpKind.ALL_REDUCE || kind == OpKind.REDUCE || kind == OpKind.REDUCE_SCATTER ? reduction : null;
    }

    static boolean rootOnly(OpKind kind) {
        return kind == OpKind.BROADCAST || kind == OpKind.REDUCE || kind == OpKind.GATHER || kind == OpKind.SCATTER;
    }

    @TestFactory
    Stream<DynamicTest> everyCollectiveWithHipBuffers() {
        HipStub.assumeBuilt();
        List<DynamicTest> tests = new ArrayList<>();
        for (int n = 2; n <= 4; n++) {
            DataType type = n == 3 ? DataType.INT64 : DataType.FLOAT32;
            ReduceOp.Kind reduction = n == 3 ? ReduceOp.Kind.MAX : ReduceOp.Kind.SUM;
            for (OpKind kind : KINDS) {
                ReduceOp.Kind applied = reductionOf(kind, reduction);
                for (long size : SIZES) {
                    for (boolean inPlace : supportsInPlace(kind) ? new boolean[] {false, true}
                            : new boolean[] {false}) {
                        int ranks = n;
                        long seed = java.util.Objects.hash(kind, n, size, inPlace);
                        tests.add(DynamicTest.dynamicTest(kind + " n=" + n + " size=" + size + " " + type
                                + (inPlace ? " in-place" : ""), () -> run(comms(ranks, "local"), hipDomains(ranks),
                                kind, type, applied, size, inPlace, seed)));
                    }
                }
            }
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> everyCollectiveOverTcp() {
        HipStub.assumeBuilt();
        List<DynamicTest> tests = new ArrayList<>();
        for (OpKind kind : KINDS) {
            tests.add(DynamicTest.dynamicTest(kind + " n=3 over tcp", () -> run(comms(3, "tcp"), hipDomains(3), kind,
                    DataType.FLOAT32, reductionOf(kind, ReduceOp.Kind.SUM), 5003, supportsInPlace(kind), 7)));
        }
        return tests.stream();
    }

    /** A device buffer of {@code bytes} with {@link #GUARD} guard bytes of device memory on each side. */
    private record Guarded(DeviceMemory whole, DeviceBuffer buffer) {
        static Guarded allocate(MemoryDomain domain, long bytes) {
            DeviceMemory whole = domain.allocate(bytes + 2 * GUARD);
            try (Arena a = Arena.ofConfined()) {
                MemorySegment fill = a.allocate(whole.byteSize());
                fill.fill(GUARD_BYTE);
                whole.copyFromHost(fill, 0, 0, fill.byteSize());
            }
            return new Guarded(whole, whole.slice(GUARD, bytes));
        }

        boolean guardsIntact() {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment h = a.allocate(whole.byteSize());
                whole.copyToHost(0, h, 0, h.byteSize());
                for (long i = 0; i < GUARD; i++) {
                    if (h.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != GUARD_BYTE
                            || h.get(java.lang.foreign.ValueLayout.JAVA_BYTE, h.byteSize() - 1 - i) != GUARD_BYTE) {
                        return false;
                    }
                }
                return true;
            }
        }
    }

    static void run(List<Communicator> comms, List<MemoryDomain> domains, OpKind kind, DataType type,
                    ReduceOp.Kind op, long size, boolean inPlace, long seed) {
        int n = comms.size();
        long count = switch (kind) {
            case ALL_GATHER, GATHER, REDUCE_SCATTER, SCATTER, ALL_TO_ALL, ALL_TO_ALLV ->
                    size == 0 ? 0 : Math.max(1, size / n);
            default -> size;
        };
        int root = Math.floorMod(seed, n);
        CollectiveCheck check = new CollectiveCheck(kind, type, op, n, count, root, seed);
        int es = type.sizeBytes();
        DeviceBuffer[] send = new DeviceBuffer[n];
        DeviceBuffer[] recv = new DeviceBuffer[n];
        List<Guarded> allocations = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            for (int r = 0; r < n; r++) {
                MemoryDomain d = domains.get(r);
                long sendBytes = check.sendElements(r) * es;
                long recvBytes = check.recvElements(r) * es;
                boolean inPlaceHere = inPlace && (!rootOnly(kind) || r == root);
                boolean recvInsideSend = kind == OpKind.REDUCE_SCATTER || kind == OpKind.SCATTER;
                if (inPlaceHere && recvInsideSend) {
                    Guarded g = Guarded.allocate(d, sendBytes);
                    allocations.add(g);
                    send[r] = g.buffer();
                    recv[r] = send[r].slice((long) r * count * es, count * es);
                } else if (inPlaceHere) {
                    Guarded g = Guarded.allocate(d, recvBytes);
                    allocations.add(g);
                    recv[r] = g.buffer();
                    long at = kind == OpKind.ALL_GATHER || kind == OpKind.GATHER ? (long) r * count * es : 0;
                    send[r] = recv[r].slice(at, sendBytes);
                } else {
                    if (recvBytes > 0 || !rootOnly(kind)) {
                        Guarded g = Guarded.allocate(d, recvBytes);
                        allocations.add(g);
                        recv[r] = g.buffer();
                    }
                    if (sendBytes > 0 || !rootOnly(kind)) {
                        Guarded g = Guarded.allocate(d, sendBytes);
                        allocations.add(g);
                        send[r] = g.buffer();
                    }
                }
                if (recv[r] != null && !(inPlaceHere && recvInsideSend) && recvBytes > 0) {
                    MemorySegment cd = arena.allocate(recvBytes);
                    cd.fill((byte) 0xCD);
                    recv[r].copyFromHost(cd, 0, 0, recvBytes);
                }
                if (send[r] != null && sendBytes > 0) {
                    MemorySegment in = arena.allocate(sendBytes);
                    check.fillSend(r, in);
                    send[r].copyFromHost(in, 0, 0, sendBytes);
                }
            }
            List<CollectiveFuture> futures = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                futures.add(CollectiveCalls.issue(comms.get(r), check, send[r], recv[r]));
            }
            String what = kind + " " + type + (op == null ? "" : " " + op) + " count=" + count + " n=" + n
                    + (inPlace ? " in-place" : "") + " root=" + root;
            for (CollectiveFuture f : futures) {
                if (!f.await(Duration.ofSeconds(60))) {
                    fail("timed out: " + what);
                }
            }
            for (int r = 0; r < n; r++) {
                long recvBytes = check.recvElements(r) * es;
                if (recvBytes > 0) {
                    MemorySegment out = arena.allocate(recvBytes);
                    recv[r].copyToHost(0, out, 0, recvBytes);
                    String mismatch = check.firstMismatch(r, out);
                    if (mismatch != null) {
                        fail(what + ": " + check.countWrong(r, out) + " wrong elements; first: " + mismatch);
                    }
                }
            }
            for (Guarded g : allocations) {
                assertThat(g.guardsIntact()).as("device bytes around the buffers untouched: %s", what).isTrue();
            }
        } finally {
            for (Guarded g : allocations) {
                g.whole().close();
            }
        }
    }

    @Test
    void hostDomainBuffersAreUsedDirectly() {
        List<MemoryDomain> hosts = new ArrayList<>();
        try {
            for (int r = 0; r < 3; r++) {
                hosts.add(new HostMemoryDomain());
            }
            for (OpKind kind : KINDS) {
                run(comms(3, "local"), hosts, kind, DataType.FLOAT32, reductionOf(kind, ReduceOp.Kind.SUM), 1000,
                        false, 3);
            }
            for (MemoryDomain h : hosts) {
                assertThat(h.stagingPool().stats().allocations()).as("host memory needs no staging").isZero();
            }
        } finally {
            hosts.forEach(MemoryDomain::close);
        }
    }

    /**
     * @return {@code perRank} buffers of {@code bytes} from each domain, rank by rank; the caller closes them (those
     *         already made are left to the shared domains' close when one fails)
     */
    private static List<DeviceMemory> allocate(List<MemoryDomain> domains, int perRank, long bytes) {
        List<DeviceMemory> bufs = new ArrayList<>();
        for (MemoryDomain domain : domains) {
            for (int i = 0; i < perRank; i++) {
                bufs.add(domain.allocate(bytes));
            }
        }
        return bufs;
    }

    @Test
    void operationsSeeEarlierOperationsResults() {
        HipStub.assumeBuilt();
        List<Communicator> c = comms(3, "local");
        int count = 1000;
        List<DeviceMemory> bufs = allocate(hipDomains(3), 1, 4L * count);
        List<CollectiveFuture> fs = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ones = arena.allocate(4L * count);
            for (int i = 0; i < count; i++) {
                ones.setAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, i, 1);
            }
            for (DeviceMemory b : bufs) {
                b.copyFromHost(ones, 0, 0, ones.byteSize());
            }
            for (int round = 0; round < 5; round++) {   // queued back to back, without waiting in between
                for (int r = 0; r < 3; r++) {
                    fs.add(c.get(r).allReduce(bufs.get(r), bufs.get(r), count, DataType.INT32, ReduceOp.SUM));
                }
            }
            fs.forEach(CollectiveFuture::await);
            for (DeviceMemory b : bufs) {
                MemorySegment out = arena.allocate(4L * count);
                b.copyToHost(0, out, 0, out.byteSize());
                for (int i = 0; i < count; i++) {
                    assertThat(out.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, i)).isEqualTo(243);   // 3^5
                }
            }
        } finally {
            bufs.forEach(DeviceMemory::close);
        }
    }

    @Test
    void noStagingIsAllocatedOnceWarm() {
        HipStub.assumeBuilt();
        List<Communicator> c = comms(2, "local");
        List<MemoryDomain> d = hipDomains(2);
        int count = 100_000;
        List<DeviceMemory> bufs = allocate(d, 2, 4L * count);
        try {
            Runnable round = () -> {
                List<CollectiveFuture> fs = new ArrayList<>();
                for (int r = 0; r < 2; r++) {
                    fs.add(c.get(r).allReduce(bufs.get(2 * r), bufs.get(2 * r + 1), count, DataType.FLOAT32,
                            ReduceOp.SUM));
                }
                fs.forEach(CollectiveFuture::await);
            };
            for (int i = 0; i < 3; i++) {
                round.run();
            }
            long pins = HipStub.calls("hipHostRegister");
            long[] allocations = {d.get(0).stagingPool().stats().allocations(),
                d.get(1).stagingPool().stats().allocations()};
            for (int i = 0; i < 30; i++) {
                round.run();
            }
            assertThat(HipStub.calls("hipHostRegister")).as("no pinning per operation").isEqualTo(pins);
            assertThat(d.get(0).stagingPool().stats().allocations()).isEqualTo(allocations[0]);
            assertThat(d.get(1).stagingPool().stats().allocations()).isEqualTo(allocations[1]);
            assertThat(d.get(0).stagingPool().stats().inUse()).as("every lease returned").isZero();
            assertThat(d.get(0).stagingPool().stats().reuses()).isGreaterThanOrEqualTo(60);
        } finally {
            bufs.forEach(DeviceMemory::close);
        }
    }

    /** Runs an in-place all-reduce on fresh ranks with one injected copy failure; @return every rank's error */
    private static List<JcclException> failingAllReduce(String pseudoCall) {
        int n = 3;
        List<Communicator> c = Communicator.local(n);
        List<MemoryDomain> d = new ArrayList<>();
        try {
            List<DeviceMemory> bufs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                d.add(new HipMemoryDomainProvider().open(0));
                DeviceMemory b = d.get(r).allocate(1024);
                b.copyFromHost(MemorySegment.ofArray(new int[256]), 0, 0, 1024);
                bufs.add(b);
            }
            HipStub.fail(pseudoCall, 700, 0, 1);
            List<CollectiveFuture> fs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                fs.add(c.get(r).allReduce(bufs.get(r), bufs.get(r), 256, DataType.INT32, ReduceOp.SUM));
            }
            List<JcclException> errors = new ArrayList<>();
            for (CollectiveFuture f : fs) {
                try {
                    f.await(Duration.ofSeconds(30));
                    errors.add(null);
                } catch (JcclException e) {
                    errors.add(e);
                }
            }
            for (MemoryDomain m : d) {
                assertThat(m.stagingPool().stats().inUse()).as("staging returned after the failure").isZero();
            }
            return errors;
        } finally {
            HipStub.clearFailures();
            c.forEach(Communicator::abort);
            d.forEach(MemoryDomain::close);
        }
    }

    /**
     * @param errors every rank's error from {@link #failingAllReduce}
     * @return the error of the one rank whose copy failed (the others report it as a remote error)
     */
    private static JcclException theFailedRanksError(List<JcclException> errors) {
        List<JcclException> local = errors.stream().filter(e -> e != null && e.code() == ErrorCode.SYSTEM_ERROR)
                .toList();
        assertThat(local).hasSize(1);
        return local.get(0);
    }

    @Test
    void aFailedCopyIntoStagingFailsTheOperationNamingDomainAndCall() {
        HipStub.assumeBuilt();
        List<JcclException> errors = failingAllReduce("hipMemcpy.DeviceToHost");
        assertThat(theFailedRanksError(errors).detail()).contains("allReduce(count=256", "copying send (1024 bytes) from hip memory "
                + "into host staging failed", "hipMemcpy(dst", "hipMemcpyDeviceToHost",
                "hipErrorIllegalAddress (700)", "[hip memory domain]");
        assertThat(errors).as("the peers learn of it").allSatisfy(e -> {
            assertThat(e).isNotNull();
            assertThat(e.code()).isIn(ErrorCode.SYSTEM_ERROR, ErrorCode.REMOTE_ERROR);
        });
    }

    @Test
    void aFailedCopyBackFailsTheOperation() {
        HipStub.assumeBuilt();
        assertThat(theFailedRanksError(failingAllReduce("hipMemcpy.HostToDevice")).detail()).contains("allReduce(count=256", "copying recv (1024 bytes) from host "
                + "staging into hip memory failed", "hipMemcpyHostToDevice", "hipErrorIllegalAddress (700)");
    }
}
