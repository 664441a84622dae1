package io.jccl.metaroce.offload;

import io.jccl.metaroce.protocol.Endpoint;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * What carries one MetaRoCE {@link Endpoint}'s datagrams between the protocol core and the wire: the seam where a NIC
 * takes over from the software UDP driver ({@link io.jccl.metaroce.udp.UdpDriver}, which implements it). The
 * {@code metaroce} transport runs two endpoints (accepting and initiating) and talks to each only through this
 * interface and the endpoint it returns, so every connection of a transport whose data paths come from an
 * {@link OffloadProvider} is carried by that provider.
 *
 * <p><b>Contract.</b> The same as the UDP driver's, which the conformance suite pins down: one thread (the
 * transport's driving thread) calls every method; {@link #doWork()} moves what arrived into the endpoint and what
 * the endpoint transmits onto the wire, and runs its timers; path {@code p} of a connection is one 5-tuple (its own
 * source port), so the packets of one path stay in order on an ECMP fabric. The datagrams on the wire are MetaRoCE
 * over UDP exactly as {@code docs/metaroce-wire.md} defines them, so an offloaded rank and a software rank
 * interoperate, and the choice is local to each rank.
 *
 * <p><b>What it does not cover.</b> The protocol state (paths, SACKs, congestion control, regions) stays in the Java
 * {@link Endpoint}: this seam lets a NIC move the packets (its own queues, checksum and CRC offload, segmentation,
 * pacing, direct placement), not run the protocol. A NIC that runs MetaRoCE itself needs the transport to depend on
 * {@link io.jccl.metaroce.protocol.Verbs} alone, which it does not yet (see {@code docs/nic.md}).
 */
public interface MetaRoceDataPath extends AutoCloseable {
    /** @return the protocol endpoint this data path drives; post work to it from the thread calling {@link #doWork()} */
    Endpoint endpoint();

    /**
     * @return the UDP address each path receives at, in path order: what this endpoint's peers send to (listeners
     *         publish it in their handles)
     */
    List<InetSocketAddress> localAddresses();

    /**
     * Makes a peer known by the addresses of its paths (its {@link #localAddresses()}).
     *
     * @param pathAddresses one per path, in path order
     * @return the peer's id, for {@link Endpoint#connect}
     * @throws IllegalArgumentException when the count does not match this data path's paths, or an address is
     *                                  unresolved
     */
    long addPeer(List<InetSocketAddress> pathAddresses);

    /**
     * One duty cycle: receive, transmit, run due timers. Never blocks.
     *
     * @return how much work was done (0: idle)
     */
    int doWork();

    /** @return when the endpoint next needs a duty cycle with nothing arriving, on the data path's clock */
    long nextTimeoutNs();

    /** @return datagrams put on the wire so far */
    long datagramsSent();

    /** @return datagrams taken from the wire so far */
    long datagramsReceived();

    /** @return times a path was moved to a new source port for one peer (a re-route) */
    long socketsRebound();

    /** Releases the data path's resources (sockets, queues); the endpoint is not usable afterwards. */
    @Override
    void close();
}
