package io.jccl.cli.bench.loss.tun;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A lossy IP link between two network namespaces, for measuring kernel TCP (or any IP traffic) under random packet
 * loss on a machine without netem: each namespace holds one TUN device created by this JVM, and two relay threads
 * here carry every packet from one device to the other, dropping each with the configured probability.
 *
 * <pre>
 *  namespace a (side 0)                this JVM                       namespace b (side 1)
 *  10.231.0.1/24 on tun  ──read──▶ relay a→b: drop? ──write──▶ tun on 10.231.0.2/24
 *                        ◀─write── relay b→a: drop? ◀──read──
 * </pre>
 *
 * Programs run in a side with {@link #commandPrefix(int)} ({@code ip netns exec <namespace>}) and reach the other
 * side at {@link #address(int)}. Nothing else is routed in the namespaces; each has its loopback up.
 *
 * <p>Drops are per packet, independent, and the same in both directions in rate but not in draw: each direction has
 * its own generator split from the seed, so the same seed and the same packet sequence drop the same packets. The
 * relay forwards what it does not drop in order, without delay. The devices' own queues towards the relay (1000
 * packets each) are the link's buffer: when the relay falls behind, the sending kernel drops there
 * ({@link #queueDrops(int)}), like a router with a full buffer. The relay is the link's bottleneck; its rate is in
 * docs/performance.md.
 *
 * <p>Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN), {@code /dev/net/tun} and iproute2's {@code ip}: ask
 * {@link #unavailableReason()} first. {@link #close()} removes the devices and namespaces; a shutdown hook does so
 * if the JVM exits first, and {@link #open} removes namespaces left by JVMs that were killed.
 */
public final class TunLossLink implements AutoCloseable {
    /** Prefix of every namespace this class creates: {@code jccl-loss-<pid>-<n>-a} and {@code -b}. */
    static final String NAMESPACE_PREFIX = "jccl-loss-";
    private static final Pattern OWN_NAMESPACE = Pattern.compile(Pattern.quote(NAMESPACE_PREFIX) + "(\\d+)-.*");
    /** Interface names; the kernel picks the first free number, so concurrent JVMs do not collide. */
    private static final String TUN_NAME_PATTERN = "jccltun%d";
    /** Packets each device queues towards the relay before the kernel drops (the Ethernet default is 1000). */
    private static final int TX_QUEUE_PACKETS = 1000;
    private static final long JOIN_TIMEOUT_MS = 5_000;
    /** The transmit drops in {@code ip -s -j link show}: {@code "stats64":{"rx":{...},"tx":{...,"dropped":N,...}}}. */
    private static final Pattern TX_DROPPED = Pattern.compile("\"tx\":\\{[^}]*\"dropped\":(\\d+)");
    private static final AtomicInteger LINKS_OPENED = new AtomicInteger();

    private final Settings settings;
    private final String[] namespaces;
    private final InetAddress[] addresses;
    private final Tun[] tuns = new Tun[2];
    private final RelayDirection[] relays = new RelayDirection[2];
    private final Thread[] threads = new Thread[2];
    private final boolean[] namespaceCreated = new boolean[2];
    private int wakeFd = -1;
    private final Thread shutdownHook;
    private boolean closed;

    /**
     * What the link does.
     *
     * @param lossRate     probability that the relay drops a packet, each packet and direction on its own; in [0, 1]
     * @param seed         seed of the drop decisions
     * @param mtuBytes     MTU of both devices, in [576, 65535]. The default, 9000, is a data-centre jumbo frame:
     *                     the relay's cost is per packet, so bigger packets carry more bytes per second, and 9000
     *                     is the largest MTU real links commonly have; with 65535 a drop would lose a 64 KiB packet
     *                     that no real link carries in one frame
     * @param subnetPrefix the first three octets of the link's IPv4 /24, e.g. {@code 10.231.0}: side 0 is
     *                     {@code .1}, side 1 {@code .2}. The subnet exists only inside the two namespaces, so it
     *                     need not differ between links or from the host's networks, unless traffic must leave
     */
    public record Settings(double lossRate, long seed, int mtuBytes, String subnetPrefix) {
        /** The default MTU: a jumbo frame; see {@link Settings}. */
        public static final int DEFAULT_MTU_BYTES = 9000;
        /** The default subnet, {@code 10.231.0.0/24}. */
        public static final String DEFAULT_SUBNET_PREFIX = "10.231.0";
        /** RFC 791's smallest datagram every host must accept. */
        public static final int MIN_MTU_BYTES = 576;
        private static final Pattern THREE_OCTETS = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");

        /** @throws IllegalArgumentException naming the field and value, when one is out of range */
        public Settings {
            if (!(lossRate >= 0 && lossRate <= 1)) { // also refuses NaN
                throw new IllegalArgumentException("lossRate must be in [0, 1], got " + lossRate);
            }
            if (mtuBytes < MIN_MTU_BYTES || mtuBytes > Tun.MAX_PACKET_BYTES) {
                throw new IllegalArgumentException("mtuBytes must be in [" + MIN_MTU_BYTES + ", "
                        + Tun.MAX_PACKET_BYTES + "], got " + mtuBytes);
            }
            Objects.requireNonNull(subnetPrefix, "subnetPrefix");
            Matcher m = THREE_OCTETS.matcher(subnetPrefix);
            boolean valid = m.matches();
            for (int i = 1; valid && i <= 3; i++) {
                valid = Integer.parseInt(m.group(i)) <= 255;
            }
            if (!valid) {
                throw new IllegalArgumentException("subnetPrefix must be the first three octets of an IPv4 /24, "
                        + "such as " + DEFAULT_SUBNET_PREFIX + ", got '" + subnetPrefix + "'");
            }
        }

        /**
         * Settings with the defaults for MTU and subnet.
         *
         * @param lossRate probability that a packet is dropped, in [0, 1]
         * @param seed     seed of the drop decisions
         * @return the given loss and seed, {@link #DEFAULT_MTU_BYTES} and {@link #DEFAULT_SUBNET_PREFIX}
         */
        public static Settings of(double lossRate, long seed) {
            return new Settings(lossRate, seed, DEFAULT_MTU_BYTES, DEFAULT_SUBNET_PREFIX);
        }

        /**
         * @param mtu the MTU of both devices, in [576, 65535]
         * @return these settings with that MTU
         */
        public Settings withMtuBytes(int mtu) {
            return new Settings(lossRate, seed, mtu, subnetPrefix);
        }

        /**
         * @param prefix the first three octets of the link's /24
         * @return these settings with that subnet
         */
        public Settings withSubnetPrefix(String prefix) {
            return new Settings(lossRate, seed, mtuBytes, prefix);
        }

        /** @return side's address: {@code <subnetPrefix>.1} for side 0, {@code .2} for side 1 */
        InetAddress address(int side) {
            checkSide(side);
            String[] octets = subnetPrefix.split("\\.");
            byte[] bytes = {(byte) Integer.parseInt(octets[0]), (byte) Integer.parseInt(octets[1]),
                    (byte) Integer.parseInt(octets[2]), (byte) (side + 1)};
            try {
                return Inet4Address.getByAddress(bytes);
            } catch (UnknownHostException e) {
                throw new AssertionError("4 bytes are an IPv4 address", e);
            }
        }
    }

    /**
     * What one direction's relay has done so far.
     *
     * @param packetsForwarded packets written to the other side
     * @param bytesForwarded   their IP bytes (headers included)
     * @param packetsDropped   packets dropped by the random loss
     * @param bytesDropped     their IP bytes
     * @param packetsRefused   packets the other side's kernel refused (full backlog, device down): lost too, but
     *                         not by the configured loss
     */
    public record Counters(long packetsForwarded, long bytesForwarded, long packetsDropped, long bytesDropped,
                           long packetsRefused) {
        /** @return packets the relay read, whatever became of them */
        public long packetsRead() {
            return packetsForwarded + packetsDropped + packetsRefused;
        }

        /**
         * @param other counters to add, e.g. the other direction's
         * @return these counters plus {@code other}'s
         */
        public Counters plus(Counters other) {
            return new Counters(packetsForwarded + other.packetsForwarded, bytesForwarded + other.bytesForwarded,
                    packetsDropped + other.packetsDropped, bytesDropped + other.bytesDropped,
                    packetsRefused + other.packetsRefused);
        }
    }

    private TunLossLink(Settings settings, int number) {
        this.settings = settings;
        String base = NAMESPACE_PREFIX + ProcessHandle.current().pid() + "-" + number;
        this.namespaces = new String[]{base + "-a", base + "-b"};
        this.addresses = new InetAddress[]{settings.address(0), settings.address(1)};
        this.shutdownHook = Thread.ofPlatform().name("jccl-loss-link-cleanup").unstarted(this::closeQuietly);
    }

    /**
     * Why a link cannot be opened here, probed once per JVM by creating (and removing) a TUN device and a
     * namespace.
     *
     * @return a sentence saying what is missing, or empty when links can be opened
     */
    public static Optional<String> unavailableReason() {
        return Probe.REASON;
    }

    /**
     * Sets the link up: namespaces, devices, addresses, routes, relay threads.
     *
     * @param settings what the link does
     * @return the running link; close it
     * @throws IllegalStateException when {@link #unavailableReason()} has a reason
     * @throws UncheckedIOException  when a step fails, naming it (everything done before is undone)
     */
    public static TunLossLink open(Settings settings) {
        Objects.requireNonNull(settings, "settings");
        unavailableReason().ifPresent(reason -> {
            throw new IllegalStateException("cannot open a packet-loss link: " + reason);
        });
        removeStaleNamespaces();
        TunLossLink link = new TunLossLink(settings, LINKS_OPENED.incrementAndGet());
        try {
            link.setUp();
            return link;
        } catch (IOException e) {
            throw link.closeAfterFailure(new UncheckedIOException("cannot open a packet-loss link: "
                    + e.getMessage(), e));
        } catch (RuntimeException e) {
            throw link.closeAfterFailure(e);
        } catch (Error e) {
            throw link.closeAfterFailure(e);
        }
    }

    /** @return {@code failure}, with any failure of the cleanup attached */
    private <T extends Throwable> T closeAfterFailure(T failure) {
        try {
            close();
        } catch (RuntimeException cleanup) {
            failure.addSuppressed(cleanup);
        }
        return failure;
    }

    private synchronized void setUp() throws IOException {
        // Registered first, so a JVM exiting during setup still removes what was made.
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        for (int side = 0; side < 2; side++) {
            IpCommand.run("netns", "add", namespaces[side]);
            namespaceCreated[side] = true;
        }
        for (int side = 0; side < 2; side++) {
            tuns[side] = Tun.create(TUN_NAME_PATTERN);
            String device = tuns[side].name();
            String ns = namespaces[side];
            IpCommand.run("link", "set", "dev", device, "netns", ns);
            // No IPv6 link-local address: the link carries only the caller's traffic (no router solicitations).
            IpCommand.run("-n", ns, "link", "set", "dev", device, "mtu", Integer.toString(settings.mtuBytes),
                    "txqueuelen", Integer.toString(TX_QUEUE_PACKETS), "addrgenmode", "none");
            IpCommand.run("-n", ns, "address", "add", addresses[side].getHostAddress() + "/24", "dev", device);
            IpCommand.run("-n", ns, "link", "set", "dev", device, "up");
            IpCommand.run("-n", ns, "link", "set", "dev", "lo", "up");
        }
        wakeFd = Tun.eventFd();
        PacketLoss[] loss = PacketLoss.forBothDirections(settings.lossRate, settings.seed);
        for (int from = 0; from < 2; from++) {
            relays[from] = new RelayDirection(tuns[from], tuns[1 - from], wakeFd, loss[from]);
            threads[from] = Thread.ofPlatform().daemon().name("jccl-loss-relay-" + (from == 0 ? "a>b" : "b>a"))
                    .start(relays[from]);
        }
    }

    /** @return the settings this link was opened with */
    public Settings settings() {
        return settings;
    }

    /**
     * @param side 0 or 1
     * @return the words that run a program in that side's namespace: {@code <ip> netns exec <namespace>}, where
     *         {@code <ip>} is the path of iproute2's {@code ip}; the program follows
     */
    public List<String> commandPrefix(int side) {
        checkSide(side);
        return List.of(IpCommand.binary().orElseThrow().toString(), "netns", "exec", namespaces[side]);
    }

    /**
     * @param side 0 or 1
     * @return that side's address on the link; the other side reaches it there
     */
    public InetAddress address(int side) {
        checkSide(side);
        return addresses[side];
    }

    /**
     * @param side 0 or 1
     * @return that side's network namespace, as {@code ip netns} names it
     */
    public String namespace(int side) {
        checkSide(side);
        return namespaces[side];
    }

    /**
     * @param side 0 or 1
     * @return that side's TUN interface name (inside its namespace)
     */
    public String interfaceName(int side) {
        checkSide(side);
        return tuns[side].name();
    }

    /**
     * @param fromSide the sending side: 0 for side 0 to side 1, 1 for the way back
     * @return that direction's counters so far; may be called while the link runs, allocates one record
     */
    public Counters counters(int fromSide) {
        checkSide(fromSide);
        return relays[fromSide].counters().snapshot();
    }

    /**
     * Packets lost before the relay saw them: the sending side's kernel drops a packet when its device's queue
     * towards the relay ({@value #TX_QUEUE_PACKETS} packets) is full, as a router drops at a full buffer. That
     * happens when the relay falls behind: a burst faster than it forwards, or its thread not scheduled. Not
     * in {@link #counters}. Asks {@code ip}, so costs milliseconds.
     *
     * @param fromSide the sending side
     * @return the device's transmit drops since the link was opened
     * @throws UncheckedIOException when {@code ip} fails or its answer has no such counter
     */
    public long queueDrops(int fromSide) {
        checkSide(fromSide);
        String json;
        try {
            json = IpCommand.run("-n", namespaces[fromSide], "-s", "-j", "link", "show", "dev", tuns[fromSide].name());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Matcher m = TX_DROPPED.matcher(json);
        if (!m.find()) {
            throw new UncheckedIOException(new IOException("no transmit drop counter in 'ip -s -j link show' of "
                    + tuns[fromSide].name() + ": " + json.strip()));
        }
        return Long.parseLong(m.group(1));
    }

    /** @return packets forwarded so far, both directions together */
    public long forwardedPackets() {
        return counters(0).packetsForwarded() + counters(1).packetsForwarded();
    }

    /** @return packets dropped by the random loss so far, both directions together */
    public long droppedPackets() {
        return counters(0).packetsDropped() + counters(1).packetsDropped();
    }

    /**
     * @return what stopped a relay thread before {@link #close()}, if anything did; a link whose relay failed no
     *         longer carries that direction
     */
    public Optional<Throwable> relayFailure() {
        for (RelayDirection relay : relays) {
            if (relay != null && relay.failure() != null) {
                return Optional.of(relay.failure());
            }
        }
        return Optional.empty();
    }

    /** The relay threads, for tests that measure what they allocate. */
    List<Thread> relayThreads() {
        return List.of(threads);
    }

    /**
     * Stops the relay, removes the devices and deletes both namespaces; programs still running in them lose their
     * network. Every step is tried even when one fails. Idempotent.
     *
     * @throws UncheckedIOException when something could not be removed, naming each failure
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Exception> failures = new ArrayList<>();
        for (RelayDirection relay : relays) {
            if (relay != null) {
                relay.stop();
            }
        }
        if (wakeFd >= 0) {
            try {
                Tun.signal(wakeFd);
            } catch (IOException e) {
                failures.add(e); // the threads still notice within their poll timeout
            }
        }
        boolean stopped = true;
        for (Thread thread : threads) {
            if (thread != null) {
                try {
                    if (!thread.join(java.time.Duration.ofMillis(JOIN_TIMEOUT_MS))) {
                        stopped = false;
                        failures.add(new IOException(thread.getName() + " did not stop within " + JOIN_TIMEOUT_MS
                                + " ms"));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    stopped = false;
                    failures.add(e);
                }
            }
        }
        // A descriptor is closed only once no relay can use it: its number could be reused at once.
        if (stopped) {
            for (Tun tun : tuns) {
                if (tun != null) {
                    try {
                        tun.close();
                    } catch (IOException e) {
                        failures.add(e);
                    }
                }
            }
            if (wakeFd >= 0) {
                try {
                    Tun.closeFd(wakeFd, "close(eventfd)");
                } catch (IOException e) {
                    failures.add(e);
                }
            }
        }
        for (int side = 0; side < 2; side++) {
            if (namespaceCreated[side]) {
                try {
                    IpCommand.run("netns", "delete", namespaces[side]);
                } catch (IOException e) {
                    failures.add(e);
                }
            }
        }
        if (Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException | IllegalArgumentException e) {
                // The JVM is exiting (the hook runs, or has), or setup never got to register it.
            }
        }
        if (!failures.isEmpty()) {
            IOException e = new IOException("closing the packet-loss link " + namespaces[0] + " / " + namespaces[1]
                    + " failed: " + failures.getFirst().getMessage());
            failures.forEach(e::addSuppressed);
            throw new UncheckedIOException(e);
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (RuntimeException e) {
            System.err.println("jccl: " + e.getMessage());
        }
    }

    /** Deletes {@code jccl-loss-<pid>-*} namespaces whose JVM has died (killed before its close or hook ran). */
    static void removeStaleNamespaces() {
        List<String> names;
        try {
            names = namespaceNames();
        } catch (IOException e) {
            return; // the cleanup is a courtesy; setting up will report a real problem
        }
        for (String name : names) {
            Matcher m = OWN_NAMESPACE.matcher(name);
            if (m.matches()) {
                long pid;
                try {
                    pid = Long.parseLong(m.group(1));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    continue;
                }
                try {
                    IpCommand.run("netns", "delete", name);
                } catch (IOException e) {
                    // Another JVM may have removed it at the same moment.
                }
            }
        }
    }

    /** @return the names {@code ip netns list} shows */
    static List<String> namespaceNames() throws IOException {
        List<String> names = new ArrayList<>();
        for (String line : IpCommand.run("netns", "list").split("\n")) {
            String name = line.strip();
            int space = name.indexOf(' '); // "name (id: 3)"
            if (space > 0) {
                name = name.substring(0, space);
            }
            if (!name.isEmpty()) {
                names.add(name);
            }
        }
        return names;
    }

    private static void checkSide(int side) {
        if (side != 0 && side != 1) {
            throw new IllegalArgumentException("side must be 0 or 1, got " + side);
        }
    }

    /** Probes once, on first use, whether links can be opened. */
    private static final class Probe {
        static final Optional<String> REASON = Optional.ofNullable(probe());

        private static String probe() {
            if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
                return "TUN devices and network namespaces need Linux; this is " + System.getProperty("os.name");
            }
            String capabilities = missingCapabilities();
            if (capabilities != null) {
                return capabilities;
            }
            if (!Files.exists(Path.of("/dev/net/tun"))) {
                return "there is no /dev/net/tun (the tun module is not loaded, or the container does not pass it"
                        + " through)";
            }
            if (IpCommand.binary().isEmpty()) {
                return "there is no 'ip' executable (iproute2) on PATH or in /usr/sbin, /sbin, /usr/bin, /bin";
            }
            try {
                Tun.create(TUN_NAME_PATTERN).close();
            } catch (IOException e) {
                return "cannot create a TUN device: " + e.getMessage();
            } catch (Throwable t) { // native access denied, libc calls not linkable
                return "cannot call libc through the FFM API (" + t + "); run with --enable-native-access";
            }
            String probe = NAMESPACE_PREFIX + ProcessHandle.current().pid() + "-probe";
            try {
                IpCommand.run("netns", "add", probe);
            } catch (IOException e) {
                return "cannot create a network namespace: " + e.getMessage();
            }
            try {
                IpCommand.run("netns", "delete", probe);
            } catch (IOException e) {
                return "cannot delete the network namespace " + probe + ": " + e.getMessage();
            }
            return null;
        }

        /** @return a sentence when /proc/self/status shows CAP_NET_ADMIN or CAP_SYS_ADMIN missing, else null */
        private static String missingCapabilities() {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                    if (line.startsWith("CapEff:")) {
                        long effective = Long.parseUnsignedLong(line.substring(7).strip(), 16);
                        boolean netAdmin = (effective & (1L << 12)) != 0;
                        boolean sysAdmin = (effective & (1L << 21)) != 0;
                        if (!netAdmin || !sysAdmin) {
                            return "needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to create TUN devices and network"
                                    + " namespaces; this process runs as " + System.getProperty("user.name")
                                    + " without " + (netAdmin ? "CAP_SYS_ADMIN" : sysAdmin ? "CAP_NET_ADMIN"
                                    : "either");
                        }
                    }
                }
            } catch (IOException | NumberFormatException e) {
                // No /proc: the probes below tell.
            }
            return null;
        }
    }
}
