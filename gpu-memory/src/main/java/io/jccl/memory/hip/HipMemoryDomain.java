package io.jccl.memory.hip;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.memory.CopyKind;
import io.jccl.memory.DeviceProperties;
import io.jccl.memory.MemoryDomain;
import io.jccl.memory.PinnedStagingPool;

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
 * common case costs no call.
 */
public final class HipMemoryDomain extends MemoryDomain {
    /** The name {@code JCCL_MEMORY} selects it by. */
    public static final String NAME = "hip";

    /** The device each thread made current through a HIP domain (-1: none yet). */
    private static final ThreadLocal<int[]> CURRENT_DEVICE = ThreadLocal.withInitial(() -> new int[] {-1});

    private final HipRuntime hip;

    /**
     * @param hip    the bindings
     * @param device the device index, checked against {@code hipGetDeviceCount}
     */
    HipMemoryDomain(HipRuntime hip, int device) {
        super(NAME, device, PinnedStagingPool.DEFAULT_MAX_CACHED_BYTES);
        this.hip = hip;
        int count = hip.getDeviceCount();
        if (device >= count) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "HIP device " + device + " does not exist: "
                    + hip.library() + " reports " + count + " device" + (count == 1 ? "" : "s"));
        }
        useDevice();
    }

    /** @return the library the bindings were loaded from */
    public String library() {
        return hip.library();
    }

    /** @return {@code hipRuntimeGetVersion}: major * 10^7 + minor * 10^5 + patch */
    public int runtimeVersion() {
        return hip.runtimeVersion();
    }

    private void useDevice() {
        int[] current = CURRENT_DEVICE.get();
        if (current[0] != device()) {
            hip.setDevice(device());
            current[0] = device();
        }
    }

    private static int kind(CopyKind kind) {
        return switch (kind) {
            case HOST_TO_DEVICE -> HipRuntime.MEMCPY_HOST_TO_DEVICE;
            case DEVICE_TO_HOST -> HipRuntime.MEMCPY_DEVICE_TO_HOST;
            case DEVICE_TO_DEVICE -> HipRuntime.MEMCPY_DEVICE_TO_DEVICE;
        };
    }

    @Override
    protected int doDeviceCount() {
        return hip.getDeviceCount();
    }

    @Override
    protected DeviceProperties doProperties(int deviceIndex) {
        return new DeviceProperties(deviceIndex, hip.deviceName(deviceIndex), hip.deviceTotalMem(deviceIndex));
    }

    @Override
    protected long doAllocate(long sizeBytes, long alignmentBytes) {
        useDevice();
        return hip.malloc(sizeBytes);
    }

    @Override
    protected void doFree(long address) {
        hip.free(address);
    }

    @Override
    protected void doCopy(CopyKind kind, long destinationAddress, long sourceAddress, long sizeBytes) {
        hip.memcpy(destinationAddress, sourceAddress, sizeBytes, kind(kind));
    }

    @Override
    protected void doCopyAsync(CopyKind kind, long destinationAddress, long sourceAddress, long sizeBytes,
                               long stream) {
        hip.memcpyAsync(destinationAddress, sourceAddress, sizeBytes, kind(kind), stream);
    }

    @Override
    protected long doCreateStream() {
        useDevice();
        return hip.streamCreate();
    }

    @Override
    protected void doSynchronizeStream(long stream) {
        hip.streamSynchronize(stream);
    }

    @Override
    protected boolean doQueryStream(long stream) {
        return hip.streamQuery(stream);
    }

    @Override
    protected void doDestroyStream(long stream) {
        hip.streamDestroy(stream);
    }

    @Override
    protected long doCreateEvent() {
        useDevice();
        return hip.eventCreate();
    }

    @Override
    protected void doRecordEvent(long event, long stream) {
        hip.eventRecord(event, stream);
    }

    @Override
    protected boolean doQueryEvent(long event) {
        return hip.eventQuery(event);
    }

    @Override
    protected void doSynchronizeEvent(long event) {
        hip.eventSynchronize(event);
    }

    @Override
    protected void doDestroyEvent(long event) {
        hip.eventDestroy(event);
    }

    @Override
    protected void doPinHost(long address, long sizeBytes) {
        hip.hostRegister(address, sizeBytes, HipRuntime.HOST_REGISTER_PORTABLE);
    }

    @Override
    protected void doUnpinHost(long address) {
        hip.hostUnregister(address);
    }

    @Override
    protected byte[] doIpcHandle(long address) {
        return hip.ipcGetMemHandle(address);
    }

    @Override
    protected int doExportDmaBuf(long address, long sizeBytes) {
        return hip.memGetHandleForAddressRange(address, sizeBytes, HipRuntime.MEM_RANGE_HANDLE_DMA_BUF_FD, 0);
    }
}
