package io.jccl.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Device domains for tests that need a real (or stub) device: a test asks for a domain by name and is skipped when
 * it is unavailable here — or fails, when the domain is listed in {@value #REQUIRE_PROPERTY} (what
 * {@code benchmarks/gpu/run-gpu-checks.sh} sets on a GPU machine, so that a broken detection cannot pass as
 * "all skipped").
 */
public final class DeviceDomains {
    /** System property: comma-separated domain names that must be available (e.g. {@code cuda}). */
    public static final String REQUIRE_PROPERTY = "jccl.gpu.require";

    private DeviceDomains() {
    }

    /** @return the domains {@value #REQUIRE_PROPERTY} lists, lower case */
    public static Set<String> required() {
        String v = System.getProperty(REQUIRE_PROPERTY, "");
        return Arrays.stream(v.split(",")).map(s -> s.trim().toLowerCase(Locale.ROOT)).filter(s -> !s.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
    }

    /**
     * @param name a provider's name
     * @return the provider, available; the calling test is skipped (or fails, when required) otherwise
     */
    public static MemoryDomainProvider availableOrSkip(String name) {
        MemoryDomainProvider provider = MemoryDomains.providers().stream().filter(p -> p.name().equals(name))
                .findFirst().orElse(null);
        String why = provider == null ? "no '" + name + "' provider on the class path"
                : provider.availability().reason();
        if (provider == null || !provider.availability().available()) {
            if (required().contains(name)) {
                fail("the " + name + " memory domain is required (-D" + REQUIRE_PROPERTY + "=" + name + ") but not "
                        + "available: " + why);
            }
            assumeTrue(false, "the " + name + " memory domain is not available here: " + why);
        }
        return provider;
    }

    /**
     * Host bytes to copy through device memory and compare afterwards: no two seeds alike, and no byte repeating
     * within a page or from one page to the next.
     *
     * @param arena where to allocate them (64-byte aligned)
     * @param n     bytes
     * @param seed  which pattern
     * @return the bytes
     */
    public static MemorySegment pattern(Arena arena, long n, int seed) {
        MemorySegment s = arena.allocate(n, 64);
        for (long i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (seed * 13 + i * 7 + (i >>> 12)));
        }
        return s;
    }
}
