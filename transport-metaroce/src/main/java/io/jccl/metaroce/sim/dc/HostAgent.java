package io.jccl.metaroce.sim.dc;

/**
 * What runs on one host of a {@link ClosFabric}: a transport's endpoint. The fabric calls it on its one thread.
 */
public interface HostAgent {
    /** A packet for this host arrived; the agent owns it now and {@link PacketStore#free frees} it. */
    void onPacket(ClosFabric fabric, long nowPs, int packet);

    /** The timer this host set ({@link ClosFabric#setTimer}) came due. */
    void onTimer(ClosFabric fabric, long nowPs);

    /** The NIC port into {@code plane} finished its last queued packet: it can take another. */
    void onNicIdle(ClosFabric fabric, long nowPs, int plane);

    /**
     * A packet this host sent was dropped (full queue, random loss or a failed link): an oracle that only an ideal
     * transport may use. The fabric frees the packet after this returns.
     */
    default void onDropped(ClosFabric fabric, long nowPs, int packet) {
    }
}
