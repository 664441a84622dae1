package io.jccl.memory;

import io.jccl.ErrorCode;
import io.jccl.JcclException;

/**
 * What the providers of GPU memory domains (CUDA, HIP) share: a name and priority, the availability probe run once
 * and remembered, and the checks before a domain is opened. A subclass says how to probe its runtime and how to
 * open a domain on a device once the probe found one.
 */
public abstract class DeviceDomainProvider implements MemoryDomainProvider {
    private final String name;
    private final int priority;
    private volatile Availability availability;

    /**
     * @param name     the name users select it by ({@code JCCL_MEMORY}), lower case
     * @param priority preference among available providers for {@code JCCL_MEMORY=auto}
     */
    protected DeviceDomainProvider(String name, int priority) {
        this.name = name;
        this.priority = priority;
    }

    /**
     * Loads the runtime and looks for a device; called once, by the first {@link #availability()}.
     *
     * @return the answer; never throws, nor lets a {@link LinkageError} escape
     */
    protected abstract Availability probe();

    /**
     * Opens a domain once {@link #open} checked the device index and the availability.
     *
     * @param device the device index, not negative
     * @return the domain
     */
    protected abstract MemoryDomain openAvailable(int device);

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final int priority() {
        return priority;
    }

    @Override
    public final Availability availability() {
        Availability a = availability;
        if (a == null) {
            a = probe();   // two threads may both probe at first; they find the same answer
            availability = a;
        }
        return a;
    }

    @Override
    public final MemoryDomain open(int device) {
        if (device < 0) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "device must not be negative, got " + device);
        }
        Availability a = availability();
        if (!a.available()) {
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "the " + name + " memory domain is not available: "
                    + a.reason());
        }
        return openAvailable(device);
    }
}
