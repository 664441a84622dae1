package io.jccl.memory;

import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.plan.OpKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.jccl.memory.MemoryAssertions.assertFailsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every device memory domain must do, whatever its device: one suite, subclassed per domain
 * ({@code cuda.CudaDomainConformanceTest}, {@code hip.HipDomainConformanceTest}). Each test runs only where its
 * domain is available ({@link DeviceDomains}): on the build machines that is HIP over the stub, on a GPU machine
 * the GPU's domain. Device properties and range checks, allocation with alignments beyond the allocator's, zero
 * bytes, double frees, copies in every direction (native and heap host memory, 16 MiB too), stream-ordered copies
 * and events, pinning for a transport (an overlapping pin refused by the device), the IPC handle, dma-buf export or
 * a clear refusal, a device error naming the domain's call, the staging pool reused, close releasing everything,
 * and exact all-reduce (and every other collective) over device buffers of two in-JVM ranks.
 *
 * <p>Nothing here depends on a stub's controls: no failure injection, no counters, no assumption that queued work
 * is still pending (a real device may already have finished it).
 */
public abstract class DeviceDomainConformance {
    private MemoryDomainProvider provider;
    private MemoryDomain domain;
    private Arena arena;

    /** @return the name of the domain under test ({@code cuda}, {@code hip}) */
    protected abstract String domainName();

    @BeforeEach
    void openDomain() {
        provider = DeviceDomains.availableOrSkip(domainName());
        domain = provider.open(0);
        arena = Arena.ofShared();
    }

    @AfterEach
    void closeDomain() {
        if (domain != null) {
            domain.close();
            assertThat(domain.liveAllocations()).isZero();
        }
        if (arena != null) {
            arena.close();
        }
    }

    @Test
    void propertiesAndDevices() {
        assertThat(domain.name()).isEqualTo(domainName());
        assertThat(domain.device()).isZero();
        int count = domain.deviceCount();
        assertThat(count).isPositive();
        DeviceProperties p = domain.properties();
        assertThat(p.device()).isZero();
        assertThat(p.name()).isNotBlank();
        assertThat(p.totalMemoryBytes()).isPositive();
        assertThatThrownBy(() -> domain.properties(count)).isInstanceOf(JcclException.class)
                .hasMessageContaining("device " + count + " is out of range");
        assertFailsWith(ErrorCode.INVALID_ARGUMENT, () -> provider.open(count), "does not exist");
    }

    @Test
    void allocateAlignAndFree() {
        DeviceMemory a = domain.allocate(1000);
        assertThat(a.address() % MemoryDomain.DEFAULT_ALIGNMENT_BYTES).isZero();
        assertThat(a.hostSegment()).as("device memory has no host view").isEmpty();
        assertThat(a.domainName()).isEqualTo(domainName());
        DeviceMemory big = domain.allocate(100, 1 << 20);
        assertThat(big.address() % (1 << 20)).isZero();
        DeviceMemory empty = domain.allocate(0);
        assertThat(empty.address()).isZero();
        assertThat(domain.liveAllocations()).isEqualTo(3);
        domain.free(a);
        assertThat(a.isAlive()).isFalse();
        assertFailsWith(ErrorCode.INVALID_USAGE, () -> domain.free(a), "freed already");
        big.close();
        big.close();
        empty.close();
        assertThat(domain.liveAllocations()).isZero();
    }

    @Test
    void copiesInEveryDirection() {
        int n = 10_000;
        MemorySegment in = DeviceDomains.pattern(arena, n, 1);
        DeviceMemory a = domain.allocate(n);
        DeviceMemory b = domain.allocate(n);
        domain.copyHostToDevice(in, 0, a, 0, n);
        domain.copyDeviceToDevice(a, 100, b, 0, n - 100);
        MemorySegment out = arena.allocate(n);
        domain.copyDeviceToHost(b, 0, out, 100, n - 100);
        assertThat(out.asSlice(100).mismatch(in.asSlice(100))).isEqualTo(-1);
        byte[] heap = new byte[n];
        a.copyToHost(0, MemorySegment.ofArray(heap), 0, n);   // through the staging pool
        assertThat(MemorySegment.ofArray(heap).mismatch(in)).isEqualTo(-1);
        byte[] heapIn = new byte[64];
        Arrays.fill(heapIn, (byte) 42);
        a.copyFromHost(MemorySegment.ofArray(heapIn), 0, 5, 64);
        domain.copyDeviceToHost(a, 0, out, 0, 100);
        assertThat(out.get(ValueLayout.JAVA_BYTE, 4)).isEqualTo(in.get(ValueLayout.JAVA_BYTE, 4));
        assertThat(out.get(ValueLayout.JAVA_BYTE, 5)).isEqualTo((byte) 42);
        assertThat(out.get(ValueLayout.JAVA_BYTE, 68)).isEqualTo((byte) 42);
        assertThat(out.get(ValueLayout.JAVA_BYTE, 69)).isEqualTo(in.get(ValueLayout.JAVA_BYTE, 69));
        assertThatThrownBy(() -> domain.copyDeviceToHost(a, n - 10, out, 0, 11)).isInstanceOf(JcclException.class)
                .hasMessageContaining("source: offset 9990 + 11 bytes is outside its 10000 bytes");
        assertThatThrownBy(() -> domain.copyHostToDevice(in, 0, a, 0, -1)).hasMessageContaining("must not be negative");
        assertThatThrownBy(() -> domain.copyDeviceToHost(a, 0, in.asReadOnly(), 0, 1))
                .hasMessageContaining("read-only");
        domain.free(b);
        assertFailsWith(ErrorCode.INVALID_USAGE, () -> b.copyToHost(0, out, 0, 1), "was freed");
    }

    @Test
    void sixteenMebibytesRoundTrip() {
        long n = (16L << 20) + 3;
        MemorySegment in = DeviceDomains.pattern(arena, n, 5);
        DeviceMemory a = domain.allocate(n);
        DeviceMemory b = domain.allocate(n);
        a.copyFromHost(in, 0, 0, n);
        domain.copyDeviceToDevice(a, 0, b, 0, n);
        MemorySegment out = arena.allocate(n);
        b.copyToHost(0, out, 0, n);
        assertThat(out.mismatch(in)).isEqualTo(-1);
    }

    @Test
    void streamOrderedCopiesAndEvents() {
        int n = 1 << 20;
        MemorySegment in = DeviceDomains.pattern(arena, n, 2);
        MemorySegment out = arena.allocate(n);
        DeviceMemory d = domain.allocate(n);
        DeviceMemory d2 = domain.allocate(n);
        try (DeviceStream s = domain.createStream()) {
            domain.copyHostToDeviceAsync(in, 0, d, 0, n, s);
            domain.copyDeviceToDeviceAsync(d, 0, d2, 0, n, s);
            domain.copyDeviceToHostAsync(d2, 0, out, 0, n, s);
            try (DeviceEvent e = domain.recordEvent(s)) {
                domain.synchronize(e);
                assertThat(domain.isComplete(e)).isTrue();
            }
            assertThat(out.mismatch(in)).isEqualTo(-1);
            out.fill((byte) 0);
            domain.copyDeviceToHostAsync(d, 0, out, 0, n, s);
            domain.synchronize(s);
            assertThat(domain.isComplete(s)).isTrue();
            assertThat(out.mismatch(in)).isEqualTo(-1);
            assertThatThrownBy(() -> domain.copyHostToDeviceAsync(MemorySegment.ofArray(new byte[8]), 0, d, 0, 8, s))
                    .hasMessageContaining("must be native memory");
        }
        DeviceStream closed = domain.createStream();
        closed.close();
        closed.close();
        assertThatThrownBy(() -> domain.synchronize(closed)).hasMessageContaining("is closed");
        domain.createStream();   // left open: close() destroys it
    }

    @Test
    void registerPinsForTheTransport() {
        MemorySegment host = arena.allocate(1 << 16, 4096);
        HostRegistration r = domain.register(host);
        assertThat(r.segment()).isEqualTo(host);
        assertThatThrownBy(() -> domain.register(host.asSlice(4096, 4096))).isInstanceOfSatisfying(
                DeviceException.class, e -> {
                    assertThat(e.domain()).isEqualTo(domainName());
                    assertThat(e.call()).startsWith(domainName() + "HostRegister(");
                    assertThat(e.nativeName()).endsWith("ErrorHostMemoryAlreadyRegistered");
                });
        DeviceMemory d = domain.allocate(host.byteSize());
        try (DeviceStream s = domain.createStream()) {   // pinned memory as an asynchronous source
            host.fill((byte) 9);
            domain.copyHostToDeviceAsync(host, 0, d, 0, host.byteSize(), s);
            domain.synchronize(s);
        }
        r.close();
        assertThat(r.isRegistered()).isFalse();
        domain.register(host.asSlice(0, 4096)).close();   // unpinned, so it can be pinned again
        domain.register(host.asSlice(0, 4096));           // left registered: close() unpins it
        MemorySegment back = arena.allocate(host.byteSize());
        d.copyToHost(0, back, 0, back.byteSize());
        assertThat(back.mismatch(host)).isEqualTo(-1);
        assertThatThrownBy(() -> domain.register(MemorySegment.ofArray(new byte[16])))
                .hasMessageContaining("must be native memory");
    }

    @Test
    void ipcHandleAndDmaBuf() {
        DeviceMemory d = domain.allocate(5000);
        assertThat(domain.ipcHandle(d)).hasSize(64);
        try (DmaBufHandle buf = domain.exportDmaBuf(d)) {
            assertThat(buf.fd()).isNotNegative();
            assertThat(buf.sizeBytes()).as("whole pages").isEqualTo(8192);
        } catch (JcclException e) {
            assertThat(e.code()).as("a domain that cannot export says so: %s", e.detail())
                    .isIn(ErrorCode.INVALID_USAGE, ErrorCode.SYSTEM_ERROR);
            assertThat(e.detail()).containsAnyOf("does not support dma-buf export", "HandleForAddressRange");
        }
        assertThatThrownBy(() -> domain.ipcHandle(domain.allocate(0))).hasMessageContaining("nothing to share");
    }

    @Test
    void aDeviceErrorNamesTheDomainsCall() {
        assertThatThrownBy(() -> domain.allocate(1L << 52)).isInstanceOfSatisfying(DeviceException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.SYSTEM_ERROR);
            assertThat(e.domain()).isEqualTo(domainName());
            assertThat(e.call()).isEqualTo(domainName() + "Malloc(" + (1L << 52) + " bytes)");
            assertThat(e.nativeName()).startsWith(domainName() + "Error");
            assertThat(e.detail()).endsWith("[" + domainName() + " memory domain]");
        });
        domain.allocate(4096).close();   // the domain still works
    }

    @Test
    void stagingIsPinnedOnceAndReused() {
        MemorySegment s = domain.stagingPool().acquire(100_000);
        assertThat(s.byteSize()).isEqualTo(131072);
        long allocations = domain.stagingPool().stats().allocations();
        domain.stagingPool().release(s);
        MemorySegment again = domain.stagingPool().acquire(70_000);
        assertThat(again.address()).isEqualTo(s.address());
        assertThat(domain.stagingPool().stats().allocations()).isEqualTo(allocations);
        domain.stagingPool().release(again);
    }

    @Test
    void closeReleasesEverythingAndRefusesMore() {
        DeviceMemory d = domain.allocate(64);
        DeviceStream s = domain.createStream();
        domain.recordEvent(s);
        domain.register(arena.allocate(4096, 4096));
        domain.stagingPool().release(domain.stagingPool().acquire(4096));
        domain.close();
        assertThat(d.isAlive()).isFalse();
        assertThat(s.isOpen()).isFalse();
        assertThat(domain.liveAllocations()).isZero();
        assertFailsWith(ErrorCode.INVALID_USAGE, () -> domain.allocate(1),
                "the " + domainName() + " memory domain (device 0) is closed");
        domain.close();
    }

    /** Runs {@code body} with two in-JVM ranks, each with its own domain on device rank % device count. */
    private void withTwoRanks(java.util.function.BiConsumer<List<Communicator>, List<MemoryDomain>> body) {
        int devices = domain.deviceCount();
        List<Communicator> comms = Communicator.local(2, CommConfig.builder().transport("local")
                .opTimeout(Duration.ofSeconds(60)).build());
        List<MemoryDomain> domains = new ArrayList<>();
        try {
            for (int r = 0; r < 2; r++) {
                domains.add(provider.open(r % devices));
            }
            body.accept(comms, domains);
        } finally {
            comms.forEach(Communicator::close);
            domains.forEach(MemoryDomain::close);
        }
    }

    @Test
    void allReduceOverDeviceBuffersIsExact() {
        withTwoRanks((comms, domains) -> {
            for (long size : new long[] {0, 1, 1023, (1 << 20) + 3}) {
                for (boolean inPlace : new boolean[] {false, true}) {
                    DeviceCollectivesTest.run(comms, domains, OpKind.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM,
                            size, inPlace, size * 31 + (inPlace ? 1 : 0));
                }
            }
            DeviceCollectivesTest.run(comms, domains, OpKind.ALL_REDUCE, DataType.INT64, ReduceOp.Kind.MAX, 5003,
                    true, 11);
            for (MemoryDomain d : domains) {
                assertThat(d.stagingPool().stats().inUse()).as("every staging lease returned").isZero();
            }
        });
    }

    @Test
    void everyOtherCollectiveOverDeviceBuffersIsExact() {
        withTwoRanks((comms, domains) -> {
            for (OpKind kind : new OpKind[] {OpKind.BROADCAST, OpKind.REDUCE, OpKind.ALL_GATHER,
                OpKind.REDUCE_SCATTER, OpKind.ALL_TO_ALL, OpKind.ALL_TO_ALLV, OpKind.GATHER, OpKind.SCATTER,
                OpKind.P2P}) {
                boolean reducing = kind == OpKind.REDUCE || kind == OpKind.REDUCE_SCATTER;
                DeviceCollectivesTest.run(comms, domains, kind, DataType.FLOAT32,
                        reducing ? ReduceOp.Kind.SUM : null, (64 << 10) + 3,
                        DeviceCollectivesTest.supportsInPlace(kind), kind.ordinal());
            }
        });
    }
}
