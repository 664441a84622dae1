package io.jccl.memory.hip;

import io.jccl.memory.DeviceProperties;
import io.jccl.memory.DeviceRuntimeDomain;

/**
 * ROCm HIP device memory through {@link HipRuntime}'s FFM bindings to {@code libamdhip64}. Allocations are
 * {@code hipMalloc}'d on this domain's device; copies are {@code hipMemcpy}/{@code hipMemcpyAsync} (HIP's unified
 * addressing lets any thread copy between host and any device); streams and events are {@code hipStream_t} and
 * {@code hipEvent_t} handles; the staging pool and {@link #register} pin host memory with
 * {@code hipHostRegister(hipHostRegisterPortable)}; device memory is shared through {@code hipIpcGetMemHandle} and
 * {@code hipMemGetHandleForAddressRange} (dma-buf). Device memory has no host view, so communicators stage it.
 *
 * <p>HIP's current device is per thread: calls that create something on a device (allocations, streams) first make
 * this domain's device current on the calling thread, remembering per thread which device that is so that the
 * common case costs no call ({@link DeviceRuntimeDomain}).
 */
public final class HipMemoryDomain extends DeviceRuntimeDomain<HipRuntime> {
    /** The name {@code JCCL_MEMORY} selects it by. */
    public static final String NAME = "hip";

    /**
     * @param hip    the bindings
     * @param device the device index, checked against {@code hipGetDeviceCount}
     */
    HipMemoryDomain(HipRuntime hip, int device) {
        super(NAME, device, hip, false);
    }

    /** @return the library the bindings were loaded from */
    public String library() {
        return runtime().library();
    }

    /** @return {@code hipRuntimeGetVersion}: major * 10^7 + minor * 10^5 + patch */
    public int runtimeVersion() {
        return runtime().runtimeVersion();
    }

    @Override
    protected DeviceProperties doProperties(int deviceIndex) {
        return new DeviceProperties(deviceIndex, runtime().deviceName(deviceIndex),
                runtime().deviceTotalMem(deviceIndex));
    }

    @Override
    protected int doExportDmaBuf(long address, long sizeBytes) {
        return runtime().memGetHandleForAddressRange(address, sizeBytes, HipRuntime.MEM_RANGE_HANDLE_DMA_BUF_FD, 0);
    }
}
