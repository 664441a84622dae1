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
public final class HipMemoryDomainProvider extends DeviceDomainProvider {
    private final Supplier<RuntimeLoad<HipRuntime>> loader;

    /** The provider the ServiceLoader makes: the JVM's shared runtime. */
    public HipMemoryDomainProvider() {
        this(HipLibrary::shared);
    }

    /** @param loader where the runtime comes from (tests pass a failed or a stub load) */
    HipMemoryDomainProvider(Supplier<RuntimeLoad<HipRuntime>> loader) {
        super(HipMemoryDomain.NAME, 20);
        this.loader = loader;
    }

    @Override
    protected Availability probe() {
        try {
            RuntimeLoad<HipRuntime> load = loader.get();
            if (!load.loaded()) {
                return Availability.no(load.reason());
            }
            int count = load.runtime().getDeviceCount();
            return count > 0 ? Availability.yes()
                    : Availability.no(load.runtime().library() + " reports no HIP device");
        } catch (DeviceException e) {
            return Availability.no("no HIP device: " + e.detail());
        } catch (RuntimeException | LinkageError e) {
            return Availability.no("probing the HIP runtime failed: " + e);
        }
    }

    @Override
    protected MemoryDomain openAvailable(int device) {
        return new HipMemoryDomain(loader.get().runtime(), device);
    }
}
