package io.jccl.memory.cuda;

import io.jccl.ErrorCode;
import io.jccl.memory.DeviceException;
import io.jccl.memory.RuntimeLoad;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaIpcMemHandle;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.jccl.memory.MemoryAssertions.assertFailsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every CUDA binding on a machine without the NVIDIA driver: each call reaches the CUDA runtime inside JCuda
 * (arguments marshalled through JCuda's JNI, including raw addresses as {@code Pointer}s) and comes back as a
 * {@link DeviceException} naming the call with its arguments and {@code cudaErrorInsufficientDriver (35)}; also
 * with JCuda's exceptions turned back on; checks that fail before CUDA is called; the IPC handle's bytes read from
 * JCuda's object. The same calls succeeding is what the conformance suite checks on a GPU.
 */
class CudaRuntimeTest {
    private CudaRuntime cuda;

    @BeforeEach
    void setUp() {
        NvidiaDriver.assumeAbsent();
        RuntimeLoad<CudaRuntime> load = CudaLibrary.shared();
        assertThat(load.loaded()).as(load.reason()).isTrue();
        cuda = load.runtime();
    }

    private static void noDriver(ThrowingCallable call, String expectedCall) {
        assertThatThrownBy(call).isInstanceOfSatisfying(DeviceException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.SYSTEM_ERROR);
            assertThat(e.domain()).isEqualTo("cuda");
            assertThat(e.call()).isEqualTo(expectedCall);
            assertThat(e.nativeCode()).isEqualTo(35);
            assertThat(e.nativeName()).isEqualTo("cudaErrorInsufficientDriver");
            assertThat(e.detail()).isEqualTo(expectedCall + " failed: cudaErrorInsufficientDriver (35): CUDA driver "
                    + "version is insufficient for CUDA runtime version [cuda memory domain]");
        });
    }

    @Test
    void everyBindingReachesCudaAndNamesTheCall() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(8192, 4096);
            MemorySegment other = arena.allocate(8192, 4096);
            long h = host.address();
            long o = other.address();
            String hx = "0x" + Long.toHexString(h);
            String ox = "0x" + Long.toHexString(o);
            noDriver(cuda::getDeviceCount, "cudaGetDeviceCount()");
            noDriver(() -> cuda.setDevice(1), "cudaSetDevice(1)");
            noDriver(() -> cuda.deviceProperties(0), "cudaGetDeviceProperties(device 0)");
            noDriver(() -> cuda.malloc(4096), "cudaMalloc(4096 bytes)");
            noDriver(() -> cuda.free(h), "cudaFree(" + hx + ")");
            noDriver(() -> cuda.memcpy(o, h, 4096, CudaRuntime.MEMCPY_HOST_TO_DEVICE),
                    "cudaMemcpy(dst " + ox + ", src " + hx + ", 4096 bytes, cudaMemcpyHostToDevice)");
            noDriver(() -> cuda.memcpy(h, o, 16, CudaRuntime.MEMCPY_DEVICE_TO_HOST),
                    "cudaMemcpy(dst " + hx + ", src " + ox + ", 16 bytes, cudaMemcpyDeviceToHost)");
            noDriver(() -> cuda.memcpy(h, o, 16, CudaRuntime.MEMCPY_DEVICE_TO_DEVICE),
                    "cudaMemcpy(dst " + hx + ", src " + ox + ", 16 bytes, cudaMemcpyDeviceToDevice)");
            noDriver(() -> cuda.hostRegister(h, 8192, CudaRuntime.HOST_REGISTER_PORTABLE),
                    "cudaHostRegister(" + hx + ", 8192 bytes, flags 1)");
            noDriver(() -> cuda.hostUnregister(h), "cudaHostUnregister(" + hx + ")");
            noDriver(() -> cuda.ipcGetMemHandle(o), "cudaIpcGetMemHandle(" + ox + ")");
            noDriver(cuda::streamCreate, "cudaStreamCreate()");
            noDriver(cuda::eventCreate, "cudaEventCreateWithFlags(cudaEventDisableTiming)");
            assertThat(cuda.liveHandles()).as("failed creations leave nothing behind").isZero();
            assertThat(host.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0)).as("no copy happened").isZero();
        }
    }

    @Test
    void checksBeforeCudaIsCalled() {
        assertFailsWith(ErrorCode.INVALID_ARGUMENT, () -> cuda.malloc(-1),
                "cudaMalloc: sizeBytes must not be negative, got -1");
        assertThatThrownBy(() -> cuda.memcpy(0, 0, -5, CudaRuntime.MEMCPY_HOST_TO_DEVICE))
                .hasMessageContaining("cudaMemcpy: sizeBytes must not be negative, got -5");
        assertFailsWith(ErrorCode.INTERNAL_ERROR,
                () -> cuda.memcpyAsync(16, 32, 8, CudaRuntime.MEMCPY_DEVICE_TO_HOST, 0x77),
                "cudaMemcpyAsync(dst 0x10, src 0x20, 8 bytes, cudaMemcpyDeviceToHost, stream "
                        + "0x77): no live stream 0x77 was created through this runtime");
        assertThatThrownBy(() -> cuda.streamSynchronize(0x55)).hasMessageContaining("no live stream 0x55");
        assertThatThrownBy(() -> cuda.eventQuery(0x66)).hasMessageContaining("no live event 0x66");
        assertThatThrownBy(() -> cuda.eventRecord(0x66, 0x55)).hasMessageContaining("no live event 0x66");
    }

    @Test
    void withJCudaExceptionsOnTheSameDeviceExceptionsComeBack() {
        JCuda.setExceptionsEnabled(true);
        try {
            noDriver(() -> cuda.malloc(64), "cudaMalloc(64 bytes)");
            noDriver(cuda::getDeviceCount, "cudaGetDeviceCount()");
        } finally {
            JCuda.setExceptionsEnabled(false);
        }
        assertThat(CudaRuntime.codeOf("cudaErrorNotReady")).isEqualTo(600);
        assertThat(CudaRuntime.codeOf("cudaErrorInsufficientDriver")).isEqualTo(35);
        assertThat(CudaRuntime.codeOf("cudaSuccess")).isZero();
        assertThat(CudaRuntime.codeOf("not an error")).isEqualTo(-1);
        assertThat(CudaRuntime.codeOf(null)).isEqualTo(-1);
    }

    @Test
    void versionsErrorNamesAndTheIpcHandleBytes() {
        assertThat(cuda.driverVersion()).isZero();
        assertThat(cuda.runtimeVersion()).isGreaterThanOrEqualTo(12000);
        assertThat(cuda.errorName(2)).isEqualTo("cudaErrorMemoryAllocation");
        assertThat(cuda.errorString(2)).isEqualTo("out of memory");
        assertThat(CudaRuntime.handleBytes(new cudaIpcMemHandle())).hasSize(64).containsOnly((byte) 0);
        assertThat(new CudaRuntime.Address(0x1234_5678_9000L).value()).isEqualTo(0x1234_5678_9000L);
    }
}
