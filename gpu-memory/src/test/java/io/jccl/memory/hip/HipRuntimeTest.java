package io.jccl.memory.hip;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.memory.DeviceDomains;
import io.jccl.memory.DeviceException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

import static io.jccl.memory.hip.HipRuntime.MEMCPY_DEVICE_TO_DEVICE;
import static io.jccl.memory.hip.HipRuntime.MEMCPY_DEVICE_TO_HOST;
import static io.jccl.memory.hip.HipRuntime.MEMCPY_HOST_TO_DEVICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every HIP binding against the stub: the success path (values come back through out-parameters, data through
 * copies) and the error path (a hipError_t becomes a {@link DeviceException} naming the call, its arguments, the
 * error's name, number and description). The stub stores device bytes scrambled, so the round trips prove that
 * data only reaches device memory through hipMemcpy.
 */
class HipRuntimeTest {
    private final List<Long> allocations = new ArrayList<>();
    private HipRuntime hip;
    private Arena arena;

    @BeforeEach
    void setUp() {
        hip = HipStub.runtime();
        arena = Arena.ofConfined();
        hip.setDevice(0);
    }

    @AfterEach
    void tearDown() {
        HipStub.clearFailures();
        allocations.forEach(hip::free);
        HipStub.setDeviceCount(HipStub.DEVICES);
        HipStub.setAsyncImmediate(false);
        if (arena != null) {
            arena.close();
        }
    }

    private static DeviceException hipError(Runnable call, String callText, String name, int code) {
        try {
            call.run();
        } catch (DeviceException e) {
            assertThat(e.code()).isEqualTo(ErrorCode.SYSTEM_ERROR);
            assertThat(e.domain()).isEqualTo("hip");
            assertThat(e.nativeCode()).isEqualTo(code);
            assertThat(e.nativeName()).isEqualTo(name);
            assertThat(e.detail()).contains(callText, name + " (" + code + ")", "[hip memory domain]");
            return e;
        }
        throw new AssertionError("expected " + name + " from " + callText);
    }

    /** @return {@code hipMalloc(n)}, freed after the test */
    private long malloc(long n) {
        long p = hip.malloc(n);
        allocations.add(p);
        return p;
    }

    @Test
    void devices() {
        assertThat(hip.getDeviceCount()).isEqualTo(HipStub.DEVICES);
        hip.setDevice(1);
        assertThat(hip.getDevice()).isEqualTo(1);
        hip.setDevice(0);
        assertThat(hip.getDevice()).isZero();
        assertThat(hip.deviceName(1)).isEqualTo("HIP stub device 1");
        assertThat(hip.deviceTotalMem(0)).isEqualTo(1L << 30);
        assertThat(hip.runtimeVersion()).isEqualTo(60300000);
        hipError(() -> hip.setDevice(5), "hipSetDevice(5)", "hipErrorInvalidDevice", 101);
        hipError(() -> hip.deviceName(-1), "hipDeviceGetName(device -1)", "hipErrorInvalidDevice", 101);
        hipError(() -> hip.deviceTotalMem(9), "hipDeviceTotalMem(device 9)", "hipErrorInvalidDevice", 101);
        HipStub.setDeviceCount(0);
        DeviceException e = hipError(hip::getDeviceCount, "hipGetDeviceCount()", "hipErrorNoDevice", 100);
        assertThat(e.detail()).contains("no ROCm-capable device is detected");
    }

    @Test
    void mallocFreeAndTheirErrors() {
        int before = HipStub.live(HipStub.DEVICE_ALLOCATIONS);
        long p = hip.malloc(1000);
        assertThat(p).isNotZero();
        assertThat(p % 256).as("hipMalloc alignment").isZero();
        assertThat(HipStub.live(HipStub.DEVICE_ALLOCATIONS)).isEqualTo(before + 1);
        hip.free(p);
        assertThat(HipStub.live(HipStub.DEVICE_ALLOCATIONS)).isEqualTo(before);
        hipError(() -> hip.free(p), "hipFree(0x" + Long.toHexString(p) + ")", "hipErrorInvalidValue", 1);
        assertThat(hip.malloc(0)).as("HIP: zero bytes give a null pointer").isZero();
        hip.free(0);
        hipError(() -> hip.malloc(2L << 30), "hipMalloc(2147483648 bytes)", "hipErrorOutOfMemory", 2);
        assertThatThrownBy(() -> hip.malloc(-1)).isInstanceOf(JcclException.class)
                .hasMessageContaining("sizeBytes must not be negative");
        HipStub.fail("hipMalloc", 2, 1, 1);   // the second call from now fails once
        long q = hip.malloc(64);
        hipError(() -> hip.malloc(64), "hipMalloc(64 bytes)", "hipErrorOutOfMemory", 2);
        long r = hip.malloc(64);
        hip.free(q);
        hip.free(r);
    }

    @Test
    void memcpyEveryDirectionThroughScrambledDeviceMemory() {
        int n = 4099;
        MemorySegment in = DeviceDomains.pattern(arena, n, 3);
        MemorySegment out = arena.allocate(n);
        long a = malloc(n);
        long b = malloc(n);
        hip.memcpy(a, in.address(), n, MEMCPY_HOST_TO_DEVICE);
        MemorySegment raw = MemorySegment.ofAddress(a).reinterpret(n);
        assertThat(raw.mismatch(in)).as("device bytes are not the host bytes (scrambled)").isZero();
        hip.memcpy(b, a, n, MEMCPY_DEVICE_TO_DEVICE);
        hip.memcpy(out.address(), b, n, MEMCPY_DEVICE_TO_HOST);
        assertThat(out.mismatch(in)).isEqualTo(-1);
        hip.memcpy(a, in.address(), 0, MEMCPY_HOST_TO_DEVICE);   // nothing to do
        String hexA = HipRuntime.hex(a);
        // 4099 bytes live in two pages; from the second page on they run past the allocation
        hipError(() -> hip.memcpy(out.address(), a + 4096, n, MEMCPY_DEVICE_TO_HOST),
                "hipMemcpy(dst " + HipRuntime.hex(out.address()) + ", src " + HipRuntime.hex(a + 4096) + ", "
                        + n + " bytes, hipMemcpyDeviceToHost)", "hipErrorInvalidValue", 1);
        hipError(() -> hip.memcpy(a, in.address(), n, MEMCPY_DEVICE_TO_HOST),
                "hipMemcpy(dst " + hexA, "hipErrorInvalidValue", 1);   // directions swapped
        hipError(() -> hip.memcpy(a, in.address(), n, 9), "hipMemcpyKind 9", "hipErrorInvalidMemcpyDirection",
                21);
        HipStub.fail("hipMemcpy.DeviceToHost", 700, 0, 1);
        hip.memcpy(a, in.address(), n, MEMCPY_HOST_TO_DEVICE);   // another direction still works
        hipError(() -> hip.memcpy(out.address(), a, n, MEMCPY_DEVICE_TO_HOST), "hipMemcpyDeviceToHost",
                "hipErrorIllegalAddress", 700);
    }

    @Test
    void streamsAndEventsOrderAsynchronousCopies() {
        int n = 512;
        MemorySegment in = DeviceDomains.pattern(arena, n, 11);
        MemorySegment out = arena.allocate(n);
        long d = malloc(n);
        long stream = hip.streamCreate();
        long event = hip.eventCreate();
        try {
            assertThat(HipStub.liveHandles(0)).isPositive();
            hip.memcpyAsync(d, in.address(), n, MEMCPY_HOST_TO_DEVICE, stream);
            hip.memcpyAsync(out.address(), d, n, MEMCPY_DEVICE_TO_HOST, stream);
            hip.eventRecord(event, stream);
            assertThat(hip.streamQuery(stream)).as("queued, not run").isFalse();
            assertThat(hip.eventQuery(event)).isFalse();
            assertThat(out.mismatch(in)).as("nothing copied yet").isNotEqualTo(-1);
            hip.eventSynchronize(event);
            assertThat(hip.eventQuery(event)).isTrue();
            assertThat(hip.streamQuery(stream)).isTrue();
            assertThat(out.mismatch(in)).isEqualTo(-1);
            out.fill((byte) 0);
            hip.memcpyAsync(out.address(), d, n, MEMCPY_DEVICE_TO_HOST, stream);
            hip.streamSynchronize(stream);
            assertThat(out.mismatch(in)).isEqualTo(-1);
            out.fill((byte) 0);
            hip.memcpyAsync(out.address(), d, n, MEMCPY_DEVICE_TO_HOST, 0);   // the null stream: at once
            assertThat(out.mismatch(in)).isEqualTo(-1);
            long bogus = 0x1234;
            hipError(() -> hip.memcpyAsync(d, in.address(), n, MEMCPY_HOST_TO_DEVICE, bogus),
                    "stream 0x1234", "hipErrorInvalidHandle", 400);
            hipError(() -> hip.eventRecord(bogus, stream), "hipEventRecord(0x1234", "hipErrorInvalidHandle", 400);
        } finally {
            hip.eventDestroy(event);
            hip.streamDestroy(stream);
        }
        hipError(() -> hip.streamDestroy(stream), "hipStreamDestroy(", "hipErrorInvalidHandle", 400);
        HipStub.fail("hipStreamCreate", 2, 0, 1);
        hipError(hip::streamCreate, "hipStreamCreate()", "hipErrorOutOfMemory", 2);
        HipStub.fail("hipEventCreate", 2, 0, 1);
        hipError(hip::eventCreate, "hipEventCreate()", "hipErrorOutOfMemory", 2);
    }

    /** @return the calls on one stream or event handle, by their HIP function */
    private Map<String, LongConsumer> handleCalls() {
        return Map.of("hipStreamSynchronize", hip::streamSynchronize, "hipStreamQuery", hip::streamQuery,
                "hipEventQuery", hip::eventQuery, "hipEventSynchronize", hip::eventSynchronize,
                "hipEventDestroy", hip::eventDestroy);
    }

    @ParameterizedTest
    @ValueSource(strings = {"hipStreamSynchronize", "hipStreamQuery", "hipEventQuery", "hipEventSynchronize",
        "hipEventDestroy"})
    void aHandleNeverCreatedIsInvalid(String function) {
        long stream = hip.streamCreate();   // live ones beside it, which the stub must not take it for
        long event = hip.eventCreate();
        try {
            hipError(() -> handleCalls().get(function).accept(0x1234), function + "(0x1234)",
                    "hipErrorInvalidHandle", 400);
        } finally {
            hip.eventDestroy(event);
            hip.streamDestroy(stream);
        }
    }

    @Test
    void destroyingAStreamFinishesItsWork() {
        int n = 64;
        MemorySegment in = DeviceDomains.pattern(arena, n, 5);
        MemorySegment out = arena.allocate(n);
        long d = malloc(n);
        long s = hip.streamCreate();
        hip.memcpyAsync(d, in.address(), n, MEMCPY_HOST_TO_DEVICE, s);
        hip.streamDestroy(s);
        hip.memcpy(out.address(), d, n, MEMCPY_DEVICE_TO_HOST);
        assertThat(out.mismatch(in)).isEqualTo(-1);
    }

    @Test
    void hostRegisterAndUnregister() {
        MemorySegment host = arena.allocate(8192, 4096);
        int before = HipStub.live(HipStub.PINNED_RANGES);
        hip.hostRegister(host.address(), host.byteSize(), HipRuntime.HOST_REGISTER_PORTABLE);
        assertThat(HipStub.live(HipStub.PINNED_RANGES)).isEqualTo(before + 1);
        hipError(() -> hip.hostRegister(host.address() + 4096, 16, 0),
                "hipHostRegister(" + HipRuntime.hex(host.address() + 4096) + ", 16 bytes, flags 0)",
                "hipErrorHostMemoryAlreadyRegistered", 712);
        hip.hostUnregister(host.address());
        assertThat(HipStub.live(HipStub.PINNED_RANGES)).isEqualTo(before);
        hipError(() -> hip.hostUnregister(host.address()), "hipHostUnregister(", "hipErrorHostMemoryNotRegistered",
                713);
        hipError(() -> hip.hostRegister(host.address(), 0, 0), "0 bytes", "hipErrorInvalidValue", 1);
    }

    @Test
    void ipcHandlesAndDmaBufExport() {
        long d = malloc(10_000);
        byte[] handle = hip.ipcGetMemHandle(d + 100);
        assertThat(handle).hasSize(HipRuntime.IPC_HANDLE_BYTES);
        assertThat(new String(Arrays.copyOf(handle, 7), StandardCharsets.US_ASCII)).isEqualTo("HIPSTUB");
        MemorySegment h = MemorySegment.ofArray(handle);
        assertThat(h.get(ValueLayout.JAVA_LONG_UNALIGNED, 8)).as("names the whole allocation").isEqualTo(d);
        assertThat(h.get(ValueLayout.JAVA_LONG_UNALIGNED, 16)).isEqualTo(10_000);
        hipError(() -> hip.ipcGetMemHandle(0x10), "hipIpcGetMemHandle(0x10)", "hipErrorInvalidDevicePointer",
                17);

        assertThat(hip.hasMemGetHandleForAddressRange()).isTrue();
        int fd = hip.memGetHandleForAddressRange(d, 12288, HipRuntime.MEM_RANGE_HANDLE_DMA_BUF_FD, 0);
        assertThat(fd).isNotNegative();
        assertThat(HipStub.closeFd(fd)).as("a real descriptor").isZero();
        hipError(() -> hip.memGetHandleForAddressRange(d, 4096, 2, 0), "handle type 2", "hipErrorNotSupported",
                801);
        hipError(() -> hip.memGetHandleForAddressRange(d, 1 << 20, 1, 0), "1048576 bytes",
                "hipErrorInvalidValue", 1);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"0 | hipSuccess | no error",
        "700 | hipErrorIllegalAddress | an illegal memory access was encountered",
        "12345 | hipErrorUnknown | unknown error"})
    void errorNamesAndDescriptions(int error, String name, String description) {
        assertThat(hip.errorName(error)).isEqualTo(name);
        assertThat(hip.errorString(error)).isEqualTo(description);
    }

    @Test
    void injectedFailuresReachEveryCall() {
        String[][] calls = {{"hipGetDeviceCount"}, {"hipSetDevice"}, {"hipGetDevice"}, {"hipDeviceGetName"},
            {"hipDeviceTotalMem"}, {"hipRuntimeGetVersion"}};
        Runnable[] run = {hip::getDeviceCount, () -> hip.setDevice(0), hip::getDevice, () -> hip.deviceName(0),
            () -> hip.deviceTotalMem(0), hip::runtimeVersion};
        for (int i = 0; i < calls.length; i++) {
            HipStub.fail(calls[i][0], 999, 0, 1);
            hipError(run[i], calls[i][0] + "(", "hipErrorUnknown", 999);
            run[i].run();   // only once
        }
        assertThat(HipStub.calls("hipGetDeviceCount")).isPositive();
    }
}
