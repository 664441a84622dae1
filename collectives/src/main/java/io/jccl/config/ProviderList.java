package io.jccl.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * The providers of a service interface on the class path, best first: what the options that name a provider
 * ({@code JCCL_NET}, {@code JCCL_MEMORY}) choose among, and whose first suitable one is taken when none is named.
 */
public final class ProviderList {
    private ProviderList() {
    }

    /**
     * @param service  the service interface
     * @param loader   the class loader whose class path is searched
     * @param priority a provider's priority: higher comes first
     * @param name     a provider's name: equal priorities come in the order of their names
     * @param <T>      the service type
     * @return every provider found, highest priority first; unmodifiable
     * @throws java.util.ServiceConfigurationError when a provider on the class path cannot be loaded
     */
    public static <T> List<T> load(Class<T> service, ClassLoader loader, ToIntFunction<T> priority,
                                   Function<T, String> name) {
        List<T> found = new ArrayList<>();
        ServiceLoader.load(service, loader).forEach(found::add);
        found.sort(Comparator.comparingInt(priority).reversed().thenComparing(name));
        return List.copyOf(found);
    }
}
