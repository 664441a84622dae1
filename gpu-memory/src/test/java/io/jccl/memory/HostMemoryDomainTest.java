package io.jccl.memory;

import io.jccl.ErrorCode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.jccl.memory.MemoryAssertions.assertFailsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The host domain: aligned FFM allocations with host views, copies, trivial streams, and what it cannot do. */
class HostMemoryDomainTest {
    @Test
    void allocationsAreAlignedHostMemory() {
        try (MemoryDomain host = new HostMemoryDomainProvider().open(0)) {
            assertThat(host.name()).isEqualTo("host");
            assertThat(host.deviceCount()).isEqualTo(1);
            assertThat(host.properties().totalMemoryBytes()).isPositive();
            DeviceMemory m = host.allocate(1000, 4096);
            assertThat(m.address() % 4096).isZero();
            MemorySegment view = m.hostSegment().orElseThrow();
            assertThat(view.byteSize()).isEqualTo(1000);
            assertThat(view.address()).isEqualTo(m.address());
            view.set(ValueLayout.JAVA_INT, 0, 1234);
            MemorySegment out = MemorySegment.ofArray(new int[1]);
            m.copyToHost(0, out, 0, 4);
            assertThat(out.get(ValueLayout.JAVA_INT, 0)).isEqualTo(1234);
            DeviceMemory m2 = host.allocate(1000);
            host.copyDeviceToDevice(m, 0, m2, 0, 1000);
            assertThat(m2.hostSegment().orElseThrow().get(ValueLayout.JAVA_INT, 0)).isEqualTo(1234);
            m.close();
            assertThatThrownBy(() -> view.get(ValueLayout.JAVA_INT, 0)).as("a use after free fails in Java")
                    .isInstanceOf(IllegalStateException.class);
            assertThat(host.allocate(0).hostSegment()).contains(MemorySegment.NULL);
        }
        assertThatThrownBy(() -> new HostMemoryDomainProvider().open(1)).hasMessageContaining("one device, 0");
    }

    @Test
    void streamsAndEventsAreImmediate() {
        try (MemoryDomain host = new HostMemoryDomain()) {
            DeviceMemory m = host.allocate(8);
            MemorySegment src = MemorySegment.ofArray(new long[] {77});
            try (DeviceStream s = host.createStream(); DeviceEvent e = host.recordEvent(s)) {
                MemorySegment nativeSrc = java.lang.foreign.Arena.ofAuto().allocate(8);
                nativeSrc.copyFrom(src);
                host.copyHostToDeviceAsync(nativeSrc, 0, m, 0, 8, s);
                assertThat(host.isComplete(s)).isTrue();
                assertThat(host.isComplete(e)).isTrue();
                host.synchronize(s);
                host.synchronize(e);
            }
            assertThat(m.hostSegment().orElseThrow().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(77);
            try (HostRegistration r = host.register(m.hostSegment().orElseThrow())) {
                assertThat(r.segment().address()).isEqualTo(m.address());
            }
            assertFailsWith(ErrorCode.INVALID_USAGE, () -> host.ipcHandle(m),
                    "does not support inter-process memory handles");
            assertThatThrownBy(() -> host.exportDmaBuf(m)).hasMessageContaining("does not support dma-buf export");
        }
    }
}
