package io.jccl.memory.cuda;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.memory.CopyKind;
import io.jccl.memory.DeviceProperties;
import io.jccl.memory.MemoryDomain;
import io.jccl.memory.PinnedStagingPool;

/**
 * NVIDIA CUDA device memory through JCuda's runtime API ({@link CudaRuntime}). Allocations are {@code cudaMalloc}'d
 * on this domain's device; copies are {@code cudaMemcpy}/{@code cudaMemcpyAsync} (unified addressing: the direction
 * is given, the pointers say which device); streams and events are {@code cudaStream_t} and {@code cudaEvent_t}
 * handles (events without timing); the staging pool and {@link #register} pin host memory with
 * {@code cudaHostRegister(cudaHostRegisterPortable)}; device memory is shared through {@code cudaIpcGetMemHandle}.
 * Device memory has no host view, so communicators stage it. No dma-buf export: JCuda 12.6.0 does not bind
 * {@code cuMemGetHandleForAddressRange}.
 *
 * <p>CUDA's current device is per thread, and the first CUDA call of a thread that never chose one creates a
 * context on device 0 (hundreds of MiB of that GPU, in every process). So every call here — copies and pins too,
 * which run on communicator threads — first makes this domain's device current on the calling thread, remembering
 * per thread which device that is, so that the usual case costs no call.
 */
public final class CudaMemoryDomain extends MemoryDomain {
    /** The name {@code JCCL_MEMORY} selects it by. */
    public static final String NAME = "cuda";

    /** The device each thread made current through a CUDA domain (-1: none yet). */
    private static final ThreadLocal<int[]> CURRENT_DEVICE = ThreadLocal.withInitial(() -> new int[] {-1});

    private final CudaRuntime cuda;

    /**
     * @param cuda   the bindings
     * @param device the device index, checked against {@code cudaGetDeviceCount}
     */
    CudaMemoryDomain(CudaRuntime cuda, int device) {
        super(NAME, device, PinnedStagingPool.DEFAULT_MAX_CACHED_BYTES);
        this.cuda = cuda;
        int count = cuda.getDeviceCount();
        if (device >= count) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "CUDA device " + device + " does not exist: "
                    + "cudaGetDeviceCount reports " + count + " device" + (count == 1 ? "" : "s"));
        }
        useDevice();
    }

    /** @return {@code cudaRuntimeGetVersion}: 1000 * major + 10 * minor of the CUDA runtime inside JCuda */
    public int runtimeVersion() {
        return cuda.runtimeVersion();
    }

    /** @return {@code cudaDriverGetVersion}: the newest CUDA version the installed driver supports, same format */
    public int driverVersion() {
        return cuda.driverVersion();
    }

    private void useDevice() {
        int[] current = CURRENT_DEVICE.get();
        if (current[0] != device()) {
            cuda.setDevice(device());
            current[0] = device();
        }
    }

    private static int kind(CopyKind kind) {
        return switch (kind) {
            case HOST_TO_DEVICE -> CudaRuntime.MEMCPY_HOST_TO_DEVICE;
            case DEVICE_TO_HOST -> CudaRuntime.MEMCPY_DEVICE_TO_HOST;
            case DEVICE_TO_DEVICE -> CudaRuntime.MEMCPY_DEVICE_TO_DEVICE;
        };
    }

    @Override
    protected int doDeviceCount() {
        return cuda.getDeviceCount();
    }

    @Override
    protected DeviceProperties doProperties(int deviceIndex) {
        CudaRuntime.Properties p = cuda.deviceProperties(deviceIndex);
        return new DeviceProperties(deviceIndex, p.name(), p.totalGlobalMemBytes());
    }

    @Override
    protected long doAllocate(long sizeBytes, long alignmentBytes) {
        useDevice();
        return cuda.malloc(sizeBytes);
    }

    @Override
    protected void doFree(long address) {
        useDevice();
        cuda.free(address);
    }

    @Override
    protected void doCopy(CopyKind kind, long destinationAddress, long sourceAddress, long sizeBytes) {
        useDevice();
        cuda.memcpy(destinationAddress, sourceAddress, sizeBytes, kind(kind));
    }

    @Override
    protected void doCopyAsync(CopyKind kind, long destinationAddress, long sourceAddress, long sizeBytes,
                               long stream) {
        useDevice();
        cuda.memcpyAsync(destinationAddress, sourceAddress, sizeBytes, kind(kind), stream);
    }

    @Override
    protected long doCreateStream() {
        useDevice();
        return cuda.streamCreate();
    }

    @Override
    protected void doSynchronizeStream(long stream) {
        useDevice();
        cuda.streamSynchronize(stream);
    }

    @Override
    protected boolean doQueryStream(long stream) {
        useDevice();
        return cuda.streamQuery(stream);
    }

    @Override
    protected void doDestroyStream(long stream) {
        useDevice();
        cuda.streamDestroy(stream);
    }

    @Override
    protected long doCreateEvent() {
        useDevice();
        return cuda.eventCreate();
    }

    @Override
    protected void doRecordEvent(long event, long stream) {
        useDevice();
        cuda.eventRecord(event, stream);
    }

    @Override
    protected boolean doQueryEvent(long event) {
        useDevice();
        return cuda.eventQuery(event);
    }

    @Override
    protected void doSynchronizeEvent(long event) {
        useDevice();
        cuda.eventSynchronize(event);
    }

    @Override
    protected void doDestroyEvent(long event) {
        useDevice();
        cuda.eventDestroy(event);
    }

    @Override
    protected void doPinHost(long address, long sizeBytes) {
        useDevice();
        cuda.hostRegister(address, sizeBytes, CudaRuntime.HOST_REGISTER_PORTABLE);
    }

    @Override
    protected void doUnpinHost(long address) {
        useDevice();
        cuda.hostUnregister(address);
    }

    @Override
    protected byte[] doIpcHandle(long address) {
        useDevice();
        return cuda.ipcGetMemHandle(address);
    }

    @Override
    protected int doExportDmaBuf(long address, long sizeBytes) {
        throw unsupported("dma-buf export (cuMemGetHandleForAddressRange is a driver API function that JCuda "
                + CudaLibrary.JCUDA_VERSION + " does not bind)");
    }
}
