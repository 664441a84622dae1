package io.jccl.memory;

import java.util.Objects;

/**
 * Whether a {@link MemoryDomainProvider} can open domains on this machine, and if not, why.
 *
 * @param available whether it can
 * @param reason    why not (e.g. "libamdhip64 not found: tried ..."), empty when available
 */
public record Availability(boolean available, String reason) {
    private static final Availability AVAILABLE = new Availability(true, "");

    /**
     * @param available whether the provider can open domains
     * @param reason    why not; must not be blank when unavailable
     */
    public Availability {
        Objects.requireNonNull(reason, "reason");
        if (!available && reason.isBlank()) {
            throw new IllegalArgumentException("an unavailable provider must say why");
        }
    }

    /** @return the answer of a provider that can open domains */
    public static Availability yes() {
        return AVAILABLE;
    }

    /**
     * @param reason why the provider cannot open domains, for users (name the missing library, device or flag)
     * @return the answer of a provider that cannot
     */
    public static Availability no(String reason) {
        return new Availability(false, reason);
    }
}
