package io.jccl.metaroce.offload;

import io.jccl.metaroce.verbs.RdmaDevice;

import java.util.List;
import java.util.Objects;

/**
 * A NIC that can carry MetaRoCE connections instead of the software UDP driver: the plugin contract, found with
 * {@link java.util.ServiceLoader} ({@code META-INF/services/io.jccl.metaroce.offload.OffloadProvider}).
 *
 * <p>At each {@code metaroce} transport's creation {@link OffloadSelector} discovers the RDMA devices, asks every
 * provider's {@link #probe} (highest {@link #priority()} first), and the first that accepts opens the transport's
 * data paths through {@link #open}. {@code JCCL_METAROCE_OFFLOAD=off} skips all of it; {@code =<name>} asks for one
 * provider and fails when it declines. JCCL ships no provider: no NIC runs MetaRoCE yet.
 */
public interface OffloadProvider {
    /**
     * @return the provider's name, what {@code JCCL_METAROCE_OFFLOAD} selects: lower case letters, digits, {@code .},
     *         {@code _} and {@code -}, not {@code auto} or {@code off}
     */
    String name();

    /** @return its rank among providers whose probes accept; the highest wins, ties go to the name first in order */
    int priority();

    /**
     * Says whether this provider can take over MetaRoCE connections on one of the devices, and why or why not.
     * Called once per transport creation, from the creating thread; must not open anything that outlives the call.
     *
     * @param devices every device discovery found, usable or not (possibly none)
     * @return {@link Probe#accept} naming the device to use, or {@link Probe#decline} with the reason
     */
    Probe probe(List<RdmaDevice> devices);

    /**
     * Opens one data path (the transport opens two: its accepting and its initiating endpoint) on the device the
     * probe accepted.
     *
     * @param spec the device and the endpoint's settings
     * @return the data path, ready for {@link MetaRoceDataPath#doWork()}
     * @throws RuntimeException when it cannot be opened: the transport falls back to software UDP under
     *                          {@code auto} (with a warning) and fails under an explicit name
     */
    MetaRoceDataPath open(DataPathSpec spec);

    /**
     * A provider's answer to {@link #probe}.
     *
     * @param accepted whether it takes over connections
     * @param device   the device it would use; null when declined
     * @param reason   why, in a few words (it is logged): e.g. {@code MetaRoCE firmware 1.2 on port 1} or
     *                 {@code no Pensando device}
     */
    record Probe(boolean accepted, RdmaDevice device, String reason) {
        /**
         * @throws IllegalArgumentException when an acceptance names no device, or the reason is blank
         */
        public Probe {
            Objects.requireNonNull(reason, "reason");
            if (reason.isBlank()) {
                throw new IllegalArgumentException("a probe result needs a reason");
            }
            if (accepted && device == null) {
                throw new IllegalArgumentException("an accepting probe must name the device it would use");
            }
            if (!accepted) {
                device = null;
            }
        }

        /**
         * @param device the device to use
         * @param reason why it can
         * @return an acceptance
         */
        public static Probe accept(RdmaDevice device, String reason) {
            return new Probe(true, device, reason);
        }

        /**
         * @param reason why not
         * @return a refusal
         */
        public static Probe decline(String reason) {
            return new Probe(false, null, reason);
        }
    }
}
