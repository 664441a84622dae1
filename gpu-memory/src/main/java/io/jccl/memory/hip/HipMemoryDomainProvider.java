package io.jccl.memory.hip;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.memory.Availability;
import io.jccl.memory.DeviceException;
import io.jccl.memory.MemoryDomain;
import io.jccl.memory.MemoryDomainProvider;

import java.util.function.Supplier;

/**
 * Provides {@link HipMemoryDomain}, priority 20: available when the HIP runtime loads (see {@link HipLibrary}) and
 * reports at least one device. The probe runs once per JVM (the runtime is loaded then and stays loaded); the
 * reason for unavailability names every library tried, or the failed {@code hipGetDeviceCount}.
 */
public final class HipMemoryDomainProvider implements MemoryDomainProvider {
    private final Supplier<HipLibrary.Load> loader;
    private volatile Availability availability;

    /** The provider the ServiceLoader makes: the JVM's shared runtime. */
    public HipMemoryDomainProvider() {
        this(HipLibrary::shared);
    }

    /** @param loader where the runtime comes from (tests pass a failed or a stub load) */
    HipMemoryDomainProvider(Supplier<HipLibrary.Load> loader) {
        this.loader = loader;
    }

    @Override
    public String name() {
        return HipMemoryDomain.NAME;
    }

    @Override
    public int priority() {
        return 20;
    }

    @Override
    public Availability availability() {
        Availability a = availability;
        if (a == null) {
            a = probe();
            availability = a;
        }
        return a;
    }

    private Availability probe() {
        try {
            HipLibrary.Load load = loader.get();
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
    public MemoryDomain open(int device) {
        if (device < 0) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "device must not be negative, got " + device);
        }
        Availability a = availability();
        if (!a.available()) {
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "the hip memory domain is not available: " + a.reason());
        }
        return new HipMemoryDomain(loader.get().runtime(), device);
    }
}
