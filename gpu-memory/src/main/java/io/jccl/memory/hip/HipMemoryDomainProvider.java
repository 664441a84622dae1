package io.jccl.memory.hip;

import io.jccl.memory.Availability;
import io.jccl.memory.DeviceDomainProvider;
import io.jccl.memory.DeviceException;
import io.jccl.memory.MemoryDomain;
import io.jccl.memory.RuntimeLoad;

import java.util.function.Supplier;

/**
 * Provides {@link HipMemoryDomain}, priority 20: available when the HIP runtime loads (see {@link HipLibrary}) and
 * reports at least one device. The probe runs once per JVM (the runtime is loaded then and stays loaded); the
 * reason for unavailability names every library tried, or the failed {@code hipGetDeviceCount}.
 */
public final class HipMemoryDomainProvider extends DeviceDomainProvider<HipRuntime> {
    /** The provider the ServiceLoader makes: the JVM's shared runtime. */
    public HipMemoryDomainProvider() {
        this(HipLibrary::shared);
    }

    /** @param loader where the runtime comes from (tests pass a failed or a stub load) */
    HipMemoryDomainProvider(Supplier<RuntimeLoad<HipRuntime>> loader) {
        super(HipMemoryDomain.NAME, 20, loader);
    }

    @Override
    protected Availability probe(HipRuntime hip) {
        int count = hip.getDeviceCount();
        return count > 0 ? Availability.yes() : Availability.no(hip.library() + " reports no HIP device");
    }

    @Override
    protected String probeFailed(Throwable failure) {
        return failure instanceof DeviceException e ? "no HIP device: " + e.detail()
                : "probing the HIP runtime failed: " + failure;
    }

    @Override
    protected MemoryDomain openAvailable(HipRuntime hip, int device) {
        return new HipMemoryDomain(hip, device);
    }
}
