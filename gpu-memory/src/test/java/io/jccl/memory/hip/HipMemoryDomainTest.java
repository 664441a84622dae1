package io.jccl.memory.hip;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.memory.DeviceEvent;
import io.jccl.memory.DeviceException;
import io.jccl.memory.DeviceDomains;
import io.jccl.memory.DeviceMemory;
import io.jccl.memory.DeviceStream;
import io.jccl.memory.DmaBufHandle;
import io.jccl.memory.HostRegistration;
import io.jccl.memory.MemoryDomain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.jccl.memory.MemoryAssertions.assertFailsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The HIP domain over the stub, beyond what {@link io.jccl.memory.DeviceDomainConformance} checks of every device
 * domain (run over the stub by {@link HipDomainConformanceTest}): the stub's devices and properties, what reaches
 * the native library (one hipMalloc per allocation, none for zero bytes; pins), argument checks and foreign memory,
 * queued copies that wait for a synchronize, dma-buf export, native failures as {@link DeviceException}s, staging
 * pinned once, and close releasing everything in the native library.
 */
class HipMemoryDomainTest {
    private MemoryDomain hip;
    private Arena arena;
    private int liveBefore;
    private int pinnedBefore;

    @BeforeEach
    void setUp() {
        HipStub.assumeBuilt();
        liveBefore = HipStub.live(HipStub.DEVICE_ALLOCATIONS);
        pinnedBefore = HipStub.live(HipStub.PINNED_RANGES);
        hip = new HipMemoryDomainProvider().open(1);
        arena = Arena.ofShared();
    }

    @AfterEach
    void tearDown() {
        HipStub.clearFailures();
        if (hip != null) {
            hip.close();
            assertThat(HipStub.live(HipStub.DEVICE_ALLOCATIONS)).as("close frees every allocation")
                    .isEqualTo(liveBefore);
            assertThat(HipStub.live(HipStub.PINNED_RANGES)).as("close unpins everything").isEqualTo(pinnedBefore);
        }
        if (arena != null) {
            arena.close();
        }
    }

    @Test
    void propertiesAndDevices() {
        assertThat(hip.name()).isEqualTo("hip");
        assertThat(hip.device()).isEqualTo(1);
        assertThat(hip.deviceCount()).isEqualTo(HipStub.DEVICES);
        assertThat(hip.properties().name()).isEqualTo("HIP stub device 1");
        assertThat(hip.properties(0).totalMemoryBytes()).isEqualTo(1L << 30);
        assertThat(((HipMemoryDomain) hip).runtimeVersion()).isEqualTo(60300000);
        assertThatThrownBy(() -> hip.properties(2)).isInstanceOf(JcclException.class)
                .hasMessageContaining("device 2 is out of range: the hip domain has devices 0 to 1");
        assertThatThrownBy(() -> new HipMemoryDomainProvider().open(2)).isInstanceOf(JcclException.class)
                .hasMessageContaining("HIP device 2 does not exist").hasMessageContaining("reports 2 devices");
    }

    @Test
    void allocationsReachTheStubOncePerBuffer() {
        DeviceMemory a = hip.allocate(1000);
        DeviceMemory big = hip.allocate(100, 1 << 20);   // beyond hipMalloc's alignment: allocated with room
        assertThat(big.address() % (1 << 20)).isZero();
        DeviceMemory empty = hip.allocate(0);
        assertThat(HipStub.live(HipStub.DEVICE_ALLOCATIONS)).as("one hipMalloc each, none for zero bytes")
                .isEqualTo(liveBefore + 2);
        hip.free(a);
        big.close();
        empty.close();
        assertThat(HipStub.live(HipStub.DEVICE_ALLOCATIONS)).isEqualTo(liveBefore);
        assertThatThrownBy(() -> hip.allocate(-1)).hasMessageContaining("sizeBytes must not be negative");
        assertThatThrownBy(() -> hip.allocate(8, 3)).hasMessageContaining("alignmentBytes must be a power of two");
        try (MemoryDomain other = new HipMemoryDomainProvider().open(0)) {
            DeviceMemory theirs = other.allocate(16);
            assertFailsWith(ErrorCode.INVALID_ARGUMENT, () -> hip.free(theirs), "belongs to another hip domain");
            assertThatThrownBy(() -> hip.copyDeviceToDevice(theirs, 0, hip.allocate(16), 0, 16))
                    .hasMessageContaining("belongs to another domain");
        }
    }

    @Test
    void queuedCopiesWaitForASynchronize() {
        int n = 4096;
        MemorySegment in = DeviceDomains.pattern(arena, n, 2);
        MemorySegment out = arena.allocate(n);
        DeviceMemory d = hip.allocate(n);
        try (DeviceStream s = hip.createStream()) {
            hip.copyHostToDeviceAsync(in, 0, d, 0, n, s);
            hip.copyDeviceToHostAsync(d, 0, out, 0, n, s);
            assertThat(hip.isComplete(s)).as("the stub runs queued copies at a synchronize only").isFalse();
            try (DeviceEvent e = hip.recordEvent(s)) {
                assertThat(hip.isComplete(e)).isFalse();
                hip.synchronize(e);
                assertThat(hip.isComplete(e)).isTrue();
            }
            assertThat(hip.isComplete(s)).isTrue();
            assertThat(out.mismatch(in)).isEqualTo(-1);
        }
        hip.createStream();   // left open: close() destroys it
        assertThat(HipStub.liveHandles(0)).isPositive();
    }

    @Test
    void registerPinsInTheStub() {
        MemorySegment host = arena.allocate(1 << 16, 4096);
        HostRegistration r = hip.register(host);
        assertThat(HipStub.live(HipStub.PINNED_RANGES)).isEqualTo(pinnedBefore + 1);
        assertThatThrownBy(() -> hip.register(host.asSlice(4096, 4096))).isInstanceOfSatisfying(DeviceException.class,
                e -> assertThat(e.nativeName()).isEqualTo("hipErrorHostMemoryAlreadyRegistered"));
        r.close();
        assertThat(HipStub.live(HipStub.PINNED_RANGES)).isEqualTo(pinnedBefore);
        hip.register(host.asSlice(0, 4096));   // left registered: close() unpins it
    }

    @Test
    void dmaBufExportWorksOverTheStub() {
        try (DmaBufHandle buf = hip.exportDmaBuf(hip.allocate(5000))) {   // a domain may refuse; HIP 6.2+ does not
            assertThat(buf.fd()).isNotNegative();
            assertThat(buf.sizeBytes()).as("whole pages").isEqualTo(8192);
        }
    }

    @Test
    void nativeFailuresNameTheCallAndTheError() {
        HipStub.fail("hipMalloc", 2, 0, 1);
        assertThatThrownBy(() -> hip.allocate(4096)).isInstanceOfSatisfying(DeviceException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.SYSTEM_ERROR);
            assertThat(e.domain()).isEqualTo("hip");
            assertThat(e.call()).isEqualTo("hipMalloc(4096 bytes)");
            assertThat(e.nativeCode()).isEqualTo(2);
            assertThat(e.nativeName()).isEqualTo("hipErrorOutOfMemory");
            assertThat(e.detail()).isEqualTo("hipMalloc(4096 bytes) failed: hipErrorOutOfMemory (2): out of memory "
                    + "[hip memory domain]");
        });
        DeviceMemory d = hip.allocate(64);
        HipStub.fail("hipMemcpy.HostToDevice", 700, 0, 1);
        assertThatThrownBy(() -> d.copyFromHost(arena.allocate(64), 0, 0, 64))
                .isInstanceOf(DeviceException.class).hasMessageContaining("hipMemcpyHostToDevice")
                .hasMessageContaining("hipErrorIllegalAddress (700)");
        HipStub.fail("hipHostRegister", 2, 0, 1);
        assertThatThrownBy(() -> hip.stagingPool().acquire(1)).isInstanceOf(DeviceException.class)
                .hasMessageContaining("hipHostRegister(");
        assertThat(hip.stagingPool().stats().cachedSegments()).as("nothing kept of the failed pin").isZero();
    }

    @Test
    void stagingIsPinnedAndReused() {
        long registers = HipStub.calls("hipHostRegister");
        MemorySegment s = hip.stagingPool().acquire(100_000);
        assertThat(s.byteSize()).isEqualTo(131072);
        assertThat(HipStub.calls("hipHostRegister")).isEqualTo(registers + 1);
        hip.stagingPool().release(s);
        MemorySegment again = hip.stagingPool().acquire(70_000);
        assertThat(again.address()).isEqualTo(s.address());
        assertThat(HipStub.calls("hipHostRegister")).as("reused, not pinned again").isEqualTo(registers + 1);
        hip.stagingPool().release(again);
    }

    @Test
    void aClosedDomainRefusesEverything() {
        DeviceMemory d = hip.allocate(64);
        hip.close();
        assertThat(d.isAlive()).isFalse();
        assertFailsWith(ErrorCode.INVALID_USAGE, () -> hip.allocate(1), "the hip memory domain (device 1) is closed");
        assertThatThrownBy(() -> d.copyToHost(0, arena.allocate(1), 0, 1)).hasMessageContaining("is closed");
        d.close();   // nothing left to do
        hip.close();
    }
}
