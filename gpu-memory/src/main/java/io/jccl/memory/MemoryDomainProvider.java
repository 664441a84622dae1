package io.jccl.memory;

/**
 * A memory domain plugin, found with {@link java.util.ServiceLoader} (listed in
 * {@code META-INF/services/io.jccl.memory.MemoryDomainProvider}). {@link MemoryDomains} picks one by name
 * ({@code JCCL_MEMORY=host|hip|cuda}) or, for {@code auto}, the available one with the highest priority.
 *
 * <p>{@link #availability()} must never throw, nor let a {@link LinkageError} escape: a missing native library, a
 * missing symbol, no device, or a JVM without native access are answers ({@link Availability#no(String)}), not
 * failures. Providers should probe once and remember the answer.
 */
public interface MemoryDomainProvider {
    /** @return the name users select it by, lower case (e.g. {@code hip}) */
    String name();

    /** @return preference among available providers for {@code JCCL_MEMORY=auto}; higher wins (host: 0) */
    int priority();

    /** @return whether domains can be opened here, and why not */
    Availability availability();

    /**
     * Opens a domain on one device.
     *
     * @param device the device index, 0 to the device count - 1
     * @return the domain; the caller closes it
     * @throws io.jccl.JcclException SYSTEM_ERROR (with the reason) when the provider is unavailable,
     *                               INVALID_ARGUMENT for a device out of range
     */
    MemoryDomain open(int device);
}
