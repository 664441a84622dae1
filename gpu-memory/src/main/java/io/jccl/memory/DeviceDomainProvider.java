package io.jccl.memory;

import io.jccl.ErrorCode;
import io.jccl.JcclException;

import java.util.function.Supplier;

/**
 * What the providers of GPU memory domains (CUDA, HIP) share: a name and priority, the runtime's load, the
 * availability probe run once and remembered (a failed load, or anything the probe throws, becomes the reason),
 * and the checks before a domain is opened. A subclass says how to ask a loaded runtime for a device, how to word
 * a failure, and how to open a domain on a device once the probe found one.
 *
 * @param <R> the runtime's bindings
 */
public abstract class DeviceDomainProvider<R extends DeviceRuntime> implements MemoryDomainProvider {
    private final String name;
    private final int priority;
    private final Supplier<RuntimeLoad<R>> loader;
    private volatile Availability availability;

    /**
     * @param name     the name users select it by ({@code JCCL_MEMORY}), lower case
     * @param priority preference among available providers for {@code JCCL_MEMORY=auto}
     * @param loader   where the runtime comes from (the JVM's shared load; tests pass failing ones)
     */
    protected DeviceDomainProvider(String name, int priority, Supplier<RuntimeLoad<R>> loader) {
        this.name = name;
        this.priority = priority;
        this.loader = loader;
    }

    /**
     * Looks for a device on the loaded runtime; called once, by the first {@link #availability()}.
     *
     * @param runtime the bindings
     * @return the answer; what it throws becomes the reason through {@link #probeFailed}
     */
    protected abstract Availability probe(R runtime);

    /**
     * @param failure what loading or probing the runtime threw (anything but a {@link VirtualMachineError})
     * @return the reason the domain is not available, in a sentence
     */
    protected abstract String probeFailed(Throwable failure);

    /**
     * Opens a domain once {@link #open} checked the device index and the availability.
     *
     * @param runtime the bindings, loaded
     * @param device  the device index, not negative
     * @return the domain
     */
    protected abstract MemoryDomain openAvailable(R runtime, int device);

    /** Loads the runtime and probes it; never throws, nor lets a {@link LinkageError} escape. */
    private Availability loadAndProbe() {
        try {
            RuntimeLoad<R> load = loader.get();
            return load.loaded() ? probe(load.runtime()) : Availability.no(load.reason());
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable t) {
            return Availability.no(probeFailed(t));
        }
    }

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
            a = loadAndProbe();   // two threads may both probe at first; they find the same answer
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
        return openAvailable(loader.get().runtime(), device);
    }
}
