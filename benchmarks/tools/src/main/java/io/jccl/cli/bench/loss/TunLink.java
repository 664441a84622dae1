package io.jccl.cli.bench.loss;

import io.jccl.cli.bench.loss.tun.TunLossLink;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The TUN packet relay ({@link TunLossLink}) as a loss link: each side's JVM runs in a network namespace of its own
 * ({@code ip netns exec}), and every IP packet between the two crosses a relay that drops each with the given
 * probability, so TCP, Aeron UDP and MetaRoCE all go through the same impairment.
 */
public final class TunLink implements LossLink {
    private final TunLossLink link;
    private final int mtuBytes;

    private TunLink(TunLossLink link, int mtuBytes) {
        this.link = link;
        this.mtuBytes = mtuBytes;
    }

    /** @return why the TUN link cannot be set up on this machine, empty when it can */
    public static Optional<String> unavailableReason() {
        return TunLossLink.unavailableReason();
    }

    /**
     * Sets the link up.
     *
     * @param lossRate probability that a packet is dropped, each direction, in [0, 1)
     * @param seed     seed of the drops
     * @return the link
     */
    public static TunLink open(double lossRate, long seed) {
        TunLossLink.Settings s = TunLossLink.Settings.of(lossRate, seed);
        return new TunLink(TunLossLink.open(s), s.mtuBytes());
    }

    @Override
    public LinkKind kind() {
        return LinkKind.TUN;
    }

    @Override
    public List<String> commandPrefix(int side) {
        return link.commandPrefix(side);
    }

    /**
     * Aeron UDP's datagrams must fit the link's MTU whole (its default, 1408, is for 1500-byte Ethernet; a fragment
     * lost would cost the whole datagram): the largest multiple of 32 that fits with the IPv4 and UDP headers.
     * MetaRoCE and TCP size their packets from the bind interface's MTU themselves.
     */
    @Override
    public Map<String, String> environment(int side) {
        int aeronMtu = Math.clamp((mtuBytes - 28) / 32 * 32, 512, 65504);
        return Map.of("JCCL_SOCKET_FAMILY", "AF_INET", "JCCL_AERON_UDP_MTU", Integer.toString(aeronMtu));
    }

    @Override
    public InetAddress address(int side) {
        return link.address(side);
    }

    /** Overflow: drops at a device's full queue towards the relay, and packets the receiving kernel refused. */
    @Override
    public LinkCounters counters() {
        long refused = link.counters(0).packetsRefused() + link.counters(1).packetsRefused();
        return new LinkCounters(link.forwardedPackets(), link.droppedPackets(),
                link.queueDrops(0) + link.queueDrops(1) + refused);
    }

    @Override
    public Optional<String> failure() {
        return link.relayFailure().map(t -> "the TUN relay failed: " + t);
    }

    @Override
    public void close() {
        link.close();
    }
}
