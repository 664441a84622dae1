package io.jccl.metaroce.offload;

import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.udp.UdpDriver;
import io.jccl.metaroce.udp.UdpDriverConfig;
import io.jccl.metaroce.verbs.RdmaDevice;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A stand-in for a MetaRoCE-capable NIC, for tests: its probe is whatever the test says, and its "offloaded" data
 * path is the software UDP driver behind a counting wrapper, so a test can see that the transport's connections
 * really went through the provider (and that an offloaded rank interoperates with a software one). Not a NIC.
 */
public final class FakeNicProvider implements OffloadProvider {
    private final String name;
    private final int priority;
    private final Function<List<RdmaDevice>, Probe> probe;
    /** Every data path opened, in order. */
    public final List<CountingDataPath> opened = new CopyOnWriteArrayList<>();
    /** How many times the probe was asked. */
    public final AtomicInteger probes = new AtomicInteger();
    /** When set, {@link #open} throws this instead. */
    public volatile RuntimeException failOpen;

    /**
     * @param name     its name
     * @param priority its priority
     * @param probe    its probe
     */
    public FakeNicProvider(String name, int priority, Function<List<RdmaDevice>, Probe> probe) {
        this.name = name;
        this.priority = priority;
        this.probe = probe;
    }

    /** @return a provider that accepts the first Pensando device, with an active Ethernet port, and declines otherwise */
    public static FakeNicProvider pensando(String name, int priority) {
        return new FakeNicProvider(name, priority, devices -> devices.stream()
                .filter(d -> d.kind() == io.jccl.metaroce.verbs.RdmaDeviceKind.PENSANDO_IONIC)
                .findFirst()
                .map(d -> Probe.accept(d, "fake MetaRoCE firmware"))
                .orElse(Probe.decline("no Pensando device")));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int priority() {
        return priority;
    }

    @Override
    public Probe probe(List<RdmaDevice> devices) {
        probes.incrementAndGet();
        return probe.apply(devices);
    }

    @Override
    public MetaRoceDataPath open(DataPathSpec spec) {
        RuntimeException fail = failOpen;
        if (fail != null) {
            throw fail;
        }
        UdpDriver udp = new UdpDriver(spec.endpointConfig(), new UdpDriverConfig(spec.bindAddress(), 4 << 20, 64),
                spec.random(), spec.clock());
        CountingDataPath path = new CountingDataPath(udp, spec.device());
        opened.add(path);
        return path;
    }

    /** The software driver behind counters of what the transport asked of it. */
    public static final class CountingDataPath implements MetaRoceDataPath {
        private final UdpDriver udp;
        /** The device the provider opened it on. */
        public final RdmaDevice device;
        /** Duty cycles run. */
        public final AtomicLong cycles = new AtomicLong();
        /** Peers added. */
        public final AtomicLong peers = new AtomicLong();
        /** Whether it was closed. */
        public volatile boolean closed;

        CountingDataPath(UdpDriver udp, RdmaDevice device) {
            this.udp = udp;
            this.device = device;
        }

        @Override
        public Endpoint endpoint() {
            return udp.endpoint();
        }

        @Override
        public List<InetSocketAddress> localAddresses() {
            return udp.localAddresses();
        }

        @Override
        public long addPeer(List<InetSocketAddress> pathAddresses) {
            peers.incrementAndGet();
            return udp.addPeer(pathAddresses);
        }

        @Override
        public int doWork() {
            cycles.incrementAndGet();
            return udp.doWork();
        }

        @Override
        public long nextTimeoutNs() {
            return udp.nextTimeoutNs();
        }

        @Override
        public long datagramsSent() {
            return udp.datagramsSent();
        }

        @Override
        public long datagramsReceived() {
            return udp.datagramsReceived();
        }

        @Override
        public long socketsRebound() {
            return udp.socketsRebound();
        }

        @Override
        public void close() {
            closed = true;
            udp.close();
        }
    }
}
