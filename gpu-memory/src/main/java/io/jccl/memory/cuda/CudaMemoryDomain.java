package io.jccl.memory.cuda;

import io.jccl.memory.DeviceProperties;
import io.jccl.memory.DeviceRuntimeDomain;

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
 * per thread which device that is, so that the usual case costs no call ({@link DeviceRuntimeDomain}).
 */
public final class CudaMemoryDomain extends DeviceRuntimeDomain<CudaRuntime> {
    /** The name {@code JCCL_MEMORY} selects it by. */
    public static final String NAME = "cuda";

    /**
     * @param cuda   the bindings
     * @param device the device index, checked against {@code cudaGetDeviceCount}
     */
    CudaMemoryDomain(CudaRuntime cuda, int device) {
        super(NAME, device, cuda, true);
    }

    /** @return {@code cudaRuntimeGetVersion}: 1000 * major + 10 * minor of the CUDA runtime inside JCuda */
    public int runtimeVersion() {
        return runtime().runtimeVersion();
    }

    /** @return {@code cudaDriverGetVersion}: the newest CUDA version the installed driver supports, same format */
    public int driverVersion() {
        return runtime().driverVersion();
    }

    @Override
    protected DeviceProperties doProperties(int deviceIndex) {
        CudaRuntime.Properties p = runtime().deviceProperties(deviceIndex);
        return new DeviceProperties(deviceIndex, p.name(), p.totalGlobalMemBytes());
    }

    @Override
    protected int doExportDmaBuf(long address, long sizeBytes) {
        throw unsupported("dma-buf export (cuMemGetHandleForAddressRange is a driver API function that JCuda "
                + CudaLibrary.JCUDA_VERSION + " does not bind)");
    }
}
