package io.jccl.metaroce.offload;

import io.jccl.metaroce.verbs.RdmaDevice;

import java.util.Objects;

/**
 * What carries a transport's MetaRoCE connections, and the one line that says so.
 *
 * @param setting  the {@code JCCL_METAROCE_OFFLOAD} it was decided under
 * @param provider the provider that takes over, or null for software UDP
 * @param device   the device it uses, or null for software UDP
 * @param line     the decision line the transport logs at INFO, e.g. {@code MetaRoCE data path: software UDP (RDMA
 *                 devices: none; libibverbs: not installed; offload providers: none installed)}
 */
public record OffloadDecision(OffloadSetting setting, OffloadProvider provider, RdmaDevice device, String line) {
    /** What every decision line starts with. */
    public static final String PREFIX = "MetaRoCE data path: ";

    /**
     * @throws IllegalArgumentException when a provider comes without a device or the other way round
     */
    public OffloadDecision {
        Objects.requireNonNull(setting, "setting");
        Objects.requireNonNull(line, "line");
        if ((provider == null) != (device == null)) {
            throw new IllegalArgumentException("an offload decision names both a provider and a device, or neither");
        }
    }

    /** @return whether a provider takes over */
    public boolean offloaded() {
        return provider != null;
    }

    /**
     * @param why what went wrong with the provider (it could not open its data paths)
     * @return software UDP instead, saying why
     */
    public OffloadDecision fallBack(String why) {
        return new OffloadDecision(setting, null, null, PREFIX + "software UDP (" + why + ")");
    }
}
