package io.jccl.memory;

import io.jccl.CommConfig;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.config.ProviderList;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Finds the {@link MemoryDomainProvider}s on the class path and opens the domain {@code JCCL_MEMORY} (or
 * {@link CommConfig.Builder#memory(String)}) asks for: {@code host}, {@code hip}, {@code cuda}, or {@code auto} —
 * the available provider with the highest priority (host, always available, last). A named domain that is not
 * available is an error that carries the provider's reason, never a silent fallback.
 *
 * <pre>{@code
 * try (MemoryDomain gpu = MemoryDomains.open(comm.config(), localRank)) {
 *     DeviceMemory grads = gpu.allocate(bytes);
 *     comm.allReduce(grads, grads, count, DataType.FLOAT32, ReduceOp.SUM).await();
 * }
 * }</pre>
 */
public final class MemoryDomains {
    private static volatile List<MemoryDomainProvider> providers;

    private MemoryDomains() {
    }

    /** @return every provider on the class path, highest priority first (ties by name) */
    public static List<MemoryDomainProvider> providers() {
        List<MemoryDomainProvider> l = providers;
        if (l == null) {
            providers = l = ProviderList.load(MemoryDomainProvider.class, MemoryDomains.class.getClassLoader(),
                    MemoryDomainProvider::priority, MemoryDomainProvider::name);
        }
        return l;
    }

    /** @return each provider's name with its availability, in priority order (for diagnostics and logs) */
    public static Map<String, Availability> availability() {
        Map<String, Availability> m = new LinkedHashMap<>();
        for (MemoryDomainProvider p : providers()) {
            m.put(p.name(), p.availability());
        }
        return m;
    }

    /**
     * The provider for a {@code JCCL_MEMORY} value.
     *
     * @param choice {@code auto} or a provider's name (any case)
     * @return the provider, available
     * @throws JcclException INVALID_ARGUMENT for an unknown name, SYSTEM_ERROR (with the reason) for a named
     *                       provider that is not available here
     */
    public static MemoryDomainProvider select(String choice) {
        return select(choice, providers());
    }

    /**
     * {@link #select(String)} among given providers (highest priority first), for applications that assemble
     * their own list.
     *
     * @param choice     {@code auto} or a provider's name
     * @param candidates the providers, best first
     * @return the provider, available
     */
    public static MemoryDomainProvider select(String choice, List<MemoryDomainProvider> candidates) {
        if (candidates == null) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "candidates must not be null");
        }
        if (choice == null || choice.isBlank()) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, CommConfig.MEMORY + " must name a memory domain or "
                    + "auto");
        }
        String name = choice.trim().toLowerCase(Locale.ROOT);
        if (name.equals("auto")) {
            for (MemoryDomainProvider p : candidates) {
                if (p.availability().available()) {
                    return p;
                }
            }
            throw new JcclException(ErrorCode.SYSTEM_ERROR, CommConfig.MEMORY + "=auto: no memory domain is "
                    + "available: " + describe(candidates));
        }
        for (MemoryDomainProvider p : candidates) {
            if (p.name().equals(name)) {
                Availability a = p.availability();
                if (!a.available()) {
                    throw new JcclException(ErrorCode.SYSTEM_ERROR, CommConfig.MEMORY + "=" + name + ": the " + name
                            + " memory domain is not available: " + a.reason());
                }
                return p;
            }
        }
        throw new JcclException(ErrorCode.INVALID_ARGUMENT, CommConfig.MEMORY + "=" + name + ": no such memory "
                + "domain on the class path; there are: " + String.join(", ", candidates.stream()
                .map(MemoryDomainProvider::name).toList()));
    }

    private static String describe(List<MemoryDomainProvider> candidates) {
        StringBuilder sb = new StringBuilder();
        for (MemoryDomainProvider p : candidates) {
            Availability a = p.availability();
            sb.append(sb.isEmpty() ? "" : "; ").append(p.name()).append(": ")
                    .append(a.available() ? "available" : a.reason());
        }
        return sb.toString();
    }

    /**
     * Opens the domain a {@code JCCL_MEMORY} value names on one device.
     *
     * @param choice {@code host}, {@code hip}, {@code cuda} or {@code auto}
     * @param device the device index (a rank's local rank, typically)
     * @return the domain; the caller closes it
     */
    public static MemoryDomain open(String choice, int device) {
        return select(choice).open(device);
    }

    /**
     * Opens the domain a communicator's settings name ({@link CommConfig.Resolved#memory()}).
     *
     * @param config a communicator's {@link io.jccl.Communicator#config()}
     * @param device the device index
     * @return the domain; the caller closes it
     */
    public static MemoryDomain open(CommConfig.Resolved config, int device) {
        if (config == null) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "config must not be null");
        }
        return open(config.memory(), device);
    }

    /**
     * Opens the domain the environment's {@code JCCL_MEMORY} names (default {@code auto}) on one device.
     *
     * @param device the device index
     * @return the domain; the caller closes it
     */
    public static MemoryDomain open(int device) {
        return open(CommConfig.DEFAULT.resolve(System.getenv()), device);
    }
}
