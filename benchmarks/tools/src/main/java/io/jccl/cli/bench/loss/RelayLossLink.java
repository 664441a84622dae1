package io.jccl.cli.bench.loss;

import io.jccl.metaroce.fabric.ImpairmentProxy;
import io.jccl.metaroce.fabric.ProxyConfig;
import io.jccl.metaroce.fabric.RelayCounters;
import io.jccl.metaroce.impair.Impairments;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;

/**
 * The user-space UDP relay as a loss link: one {@link ImpairmentProxy} in this JVM on the IPv4 loopback, dropping
 * each datagram of every flow, each way, with the given probability (seeded). Both JVMs run on the host's network;
 * the {@code metaroce} transport's accepting endpoint registers with the proxy ({@code JCCL_METAROCE_RELAY}) and
 * publishes its fronts, so every datagram between the two crosses it. Other transports cannot use it.
 */
public final class RelayLossLink implements LossLink {
    /**
     * MetaRoCE payload per packet through the relay: Ethernet-jumbo sized, as across a datacenter fabric. Left to
     * itself the transport would take loopback's MTU (64 KiB datagrams), so that one loss would cost 64 KiB and the
     * same loss rate would mean far fewer, far costlier losses than on a real link.
     */
    public static final int PAYLOAD_BYTES = 8192;

    private final ImpairmentProxy proxy;
    private final InetAddress address;

    private RelayLossLink(ImpairmentProxy proxy, InetAddress address) {
        this.proxy = proxy;
        this.address = address;
    }

    /**
     * Opens and starts the relay.
     *
     * @param lossRate probability that a datagram is dropped, each flow and direction on its own, in [0, 1)
     * @param seed     seed of the relay's random streams
     * @return the link
     * @throws java.io.UncheckedIOException when the relay cannot open its sockets
     */
    public static RelayLossLink open(double lossRate, long seed) {
        if (!(lossRate >= 0 && lossRate < 1)) {
            throw new IllegalArgumentException("lossRate " + lossRate + " must be in [0, 1)");
        }
        // IPv4: the relay's control protocol carries IPv4 addresses only.
        InetAddress loopback = InetAddress.ofLiteral("127.0.0.1");
        ImpairmentProxy proxy = new ImpairmentProxy(ProxyConfig.defaults(loopback).withSeed(seed)
                .withImpairments(Impairments.NONE.withLossRate(lossRate)));
        proxy.start();
        return new RelayLossLink(proxy, loopback);
    }

    @Override
    public LinkKind kind() {
        return LinkKind.RELAY;
    }

    @Override
    public List<String> commandPrefix(int side) {
        return List.of();
    }

    @Override
    public Map<String, String> environment(int side) {
        InetSocketAddress control = proxy.controlAddress();
        return Map.of("JCCL_METAROCE_RELAY", control.getAddress().getHostAddress() + ":" + control.getPort(),
                "JCCL_SOCKET_FAMILY", "AF_INET",
                "JCCL_METAROCE_PAYLOAD_BYTES", Integer.toString(PAYLOAD_BYTES));
    }

    @Override
    public InetAddress address(int side) {
        return address;
    }

    @Override
    public LinkCounters counters() {
        // Datagrams the kernel refused to send, and none queued (the relay has no rate limit here); what overflows
        // an endpoint's socket buffer is not visible to the relay.
        return new LinkCounters(proxy.counter(RelayCounters.FORWARDED), proxy.counter(RelayCounters.DROPPED_LOSS),
                proxy.counter(RelayCounters.SEND_REFUSED) + proxy.counter(RelayCounters.DROPPED_QUEUE_FULL));
    }

    @Override
    public void close() {
        proxy.close();
    }

    @Override
    public String toString() {
        return "relay " + proxy.controlAddress() + " " + proxy.counters();
    }
}
