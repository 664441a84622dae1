package io.jccl.memory.cuda;

import io.jccl.memory.Availability;
import io.jccl.memory.DeviceDomainProvider;
import io.jccl.memory.DeviceException;
import io.jccl.memory.MemoryDomain;
import io.jccl.memory.RuntimeLoad;

import java.util.function.Supplier;

/**
 * Provides {@link CudaMemoryDomain}, priority 30: available when JCuda loads (see {@link CudaLibrary}) and
 * {@code cudaGetDeviceCount} reports at least one device. The probe runs once per JVM; the reason for
 * unavailability says what is missing — JCuda, its native library, the NVIDIA driver, or a device — with the
 * {@code cudaError} name where CUDA answered.
 *
 * <p>Priority: above HIP (20) and host (0). A machine answers for at most one of CUDA and HIP in practice (each
 * needs its vendor's driver and GPU), so the order only matters on a machine with GPUs of both vendors, where it
 * must be fixed and documented: CUDA goes first, as the far more common target of JVM GPU stacks, and
 * {@code JCCL_MEMORY=hip} still picks HIP.
 */
public final class CudaMemoryDomainProvider extends DeviceDomainProvider<CudaRuntime> {
    /** The provider's priority for {@code JCCL_MEMORY=auto}. */
    public static final int PRIORITY = 30;

    /** The provider the ServiceLoader makes: the JVM's shared JCuda runtime. */
    public CudaMemoryDomainProvider() {
        this(CudaLibrary::shared);
    }

    /** @param loader where the runtime comes from (tests pass failing loads) */
    CudaMemoryDomainProvider(Supplier<RuntimeLoad<CudaRuntime>> loader) {
        super(CudaMemoryDomain.NAME, PRIORITY, loader);
    }

    @Override
    protected Availability probe(CudaRuntime cuda) {
        try {
            int count = cuda.getDeviceCount();
            return count > 0 ? Availability.yes() : Availability.no("the NVIDIA driver reports no CUDA device "
                    + "(cudaGetDeviceCount: 0)");
        } catch (DeviceException e) {
            return Availability.no(noDevice(e.nativeCode(), e.detail(), driverVersion(cuda), runtimeVersion(cuda)));
        }
    }

    @Override
    protected String probeFailed(Throwable failure) {
        return CudaLibrary.reason(failure);
    }

    private static int driverVersion(CudaRuntime cuda) {
        try {
            return cuda.driverVersion();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private static int runtimeVersion(CudaRuntime cuda) {
        try {
            return cuda.runtimeVersion();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /**
     * Why CUDA has no device, in a sentence.
     *
     * @param error          what {@code cudaGetDeviceCount} returned
     * @param detail         the failed call as a {@link DeviceException} words it (call, error name and code,
     *                       description)
     * @param driverVersion  {@code cudaDriverGetVersion}: 0 when no driver is installed, -1 when unknown
     * @param runtimeVersion {@code cudaRuntimeGetVersion} of the runtime inside JCuda, -1 when unknown
     * @return the reason
     */
    static String noDevice(int error, String detail, int driverVersion, int runtimeVersion) {
        if (error == CudaRuntime.ERROR_INSUFFICIENT_DRIVER && driverVersion == 0) {
            return "no NVIDIA driver is installed (libcuda.so.1 was not found; cudaDriverGetVersion reports none): "
                    + detail;
        }
        if (error == CudaRuntime.ERROR_INSUFFICIENT_DRIVER) {
            return "the NVIDIA driver supports CUDA " + version(driverVersion) + ", older than the CUDA runtime "
                    + "inside JCuda " + CudaLibrary.JCUDA_VERSION + " (" + version(runtimeVersion) + "); update "
                    + "the driver: " + detail;
        }
        if (error == CudaRuntime.ERROR_NO_DEVICE) {
            return "the NVIDIA driver reports no CUDA device: " + detail;
        }
        return "no usable CUDA device: " + detail;
    }

    /** @return 12060 as "12.6" */
    static String version(int cudaVersion) {
        return cudaVersion < 0 ? "(unknown)" : cudaVersion / 1000 + "." + cudaVersion % 1000 / 10;
    }

    @Override
    protected MemoryDomain openAvailable(CudaRuntime cuda, int device) {
        return new CudaMemoryDomain(cuda, device);
    }
}
