package io.jccl.metaroce.verbs;

import java.util.Objects;

/**
 * One port of an RDMA device, as {@code ibv_query_port} reports it.
 *
 * @param number         the port number, from 1
 * @param state          {@code DOWN}, {@code INIT}, {@code ARMED}, {@code ACTIVE}, {@code ACTIVE_DEFER}, {@code NOP},
 *                       or {@code UNKNOWN(n)}
 * @param activeMtuBytes the active IB MTU in bytes (256-4096), 0 when unknown
 * @param linkLayer      {@code Ethernet} (RoCE), {@code InfiniBand}, or {@code unspecified}
 */
public record RdmaPort(int number, String state, int activeMtuBytes, String linkLayer) {
    /**
     * @throws IllegalArgumentException when the number is not 1-255 or the MTU is negative
     */
    public RdmaPort {
        if (number < 1 || number > 255) {
            throw new IllegalArgumentException("an RDMA port number is 1-255, got " + number);
        }
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(linkLayer, "linkLayer");
        if (activeMtuBytes < 0) {
            throw new IllegalArgumentException("activeMtuBytes must not be negative, got " + activeMtuBytes);
        }
    }

    /** @return whether the port is up ({@code ACTIVE}) */
    public boolean isActive() {
        return state.equals("ACTIVE");
    }

    /** @return whether the port runs over Ethernet (RoCE), where MetaRoCE's UDP packets can go */
    public boolean isEthernet() {
        return linkLayer.equals("Ethernet");
    }

    /** @return {@code enum ibv_port_state} as a word */
    static String stateName(int state) {
        return IbvLayouts.enumName(state, IbvLayouts.PORT_STATE_NAMES, "UNKNOWN");
    }

    /** @return {@code enum ibv_mtu} (1 = 256 ... 5 = 4096) in bytes, 0 when not one of those */
    static int mtuBytes(int ibvMtu) {
        return ibvMtu >= 1 && ibvMtu <= 5 ? 128 << ibvMtu : 0;
    }

    /** @return {@code IBV_LINK_LAYER_*} as a word */
    static String linkLayerName(int linkLayer) {
        return IbvLayouts.enumName(linkLayer, IbvLayouts.LINK_LAYER_NAMES, "unknown");
    }

    @Override
    public String toString() {
        return "port " + number + ": " + state + ", " + linkLayer + ", active MTU "
                + (activeMtuBytes == 0 ? "unknown" : activeMtuBytes + " bytes");
    }
}
