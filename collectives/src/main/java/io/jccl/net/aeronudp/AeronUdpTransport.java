package io.jccl.net.aeronudp;

import io.aeron.Aeron;
import io.aeron.Image;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.TransportContext;
import io.jccl.net.aeron.AeronTransport;
import java.net.InetAddress;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;

/**
 * One rank's aeron-udp transport: listeners, connection attempts and connections over Aeron UDP publications in
 * this JVM's media driver ({@link AeronUdpDriver}), progressed by the caller inside
 * {@link io.jccl.net.NetRequest#test()}; the driver's one thread moves the datagrams, JCCL starts no other and
 * never calls the {@link ProgressSignal}s it is given.
 */
final class AeronUdpTransport extends AeronTransport {
    private static final Logger LOG = JcclLog.logger(Subsystem.NET, AeronUdpTransport.class);
    /**
     * Sustained bandwidth reported to the tuner: what two JVMs reached over loopback on a small shared machine
     * with the default MTU (docs/performance.md); a real NIC is rarely faster for a user-space UDP stack.
     */
    static final long SPEED_MBPS = 5_000;
    /** One-way small-message latency reported to the tuner: two driver hops and the UDP stack. */
    static final double LATENCY_US = 40.0;
    /** Stream id of every listener's hellos (each listener has an endpoint of its own). */
    static final int HELLO_STREAM_ID = 1;
    /** Term length of the short-lived hello publications. */
    static final int HELLO_TERM_BYTES = 64 << 10;

    private static final AtomicLong TAGS = new AtomicLong(0x4A43434C00000000L);

    private final AeronUdpOptions options;
    private final AeronUdpDriver driver;
    private final String dataParams;

    /**
     * @param context the rank's context
     * @throws IllegalArgumentException when an option is invalid
     * @throws NetException             when the media driver cannot be started
     */
    AeronUdpTransport(TransportContext context) {
        super(AeronUdpTransportProvider.NAME, context, SPEED_MBPS, LATENCY_US);
        Objects.requireNonNull(context.bindAddress(), "context.bindAddress");
        this.options = AeronUdpOptions.parse(context.options(), AeronUdpOptions.mtuForLink(
                linkMtu(context.bindAddress()), context.bindAddress() instanceof java.net.Inet6Address));
        this.dataParams = "|mtu=" + options.mtuBytes() + "|term-length=" + options.termBytes() + "|sparse=true";
        this.driver = AeronUdpDriver.acquire(options);
    }

    /** @return the MTU of the interface that holds {@code address}, or -1 when it cannot be told */
    private static int linkMtu(InetAddress address) {
        try {
            java.net.NetworkInterface nif = java.net.NetworkInterface.getByInetAddress(address);
            return nif == null ? -1 : nif.getMTU();
        } catch (java.io.IOException e) {
            return -1;
        }
    }

    @Override
    public Listener listen(ProgressSignal signal) {
        resources().checkOpen();
        InetAddress bind = context.bindAddress();
        if (bind.isAnyLocalAddress()) {
            LOG.warn("rank {} listens on the wildcard address {}: its handle only works for peers on this host;"
                    + " choose an interface (JCCL_SOCKET_IFNAME)", rank(), bind);
        }
        long tag = TAGS.incrementAndGet();
        Aeron aeron = driver.aeron();
        Subscription hellos;
        String endpoint;
        try {
            hellos = aeron.addSubscription("aeron:udp?endpoint=" + host(bind) + ":0|tags=" + tag, HELLO_STREAM_ID);
            long deadline = listenDeadlineNs();
            while ((endpoint = hellos.resolvedEndpoint()) == null) {
                if (System.nanoTime() - deadline > 0) {
                    hellos.close();
                    throw new NetException(NetException.Reason.IO_ERROR, "the aeron-udp media driver did not bind"
                            + " the listener's endpoint on " + bind + " in time");
                }
                LockSupport.parkNanos(100_000);
            }
        } catch (NetException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new NetException(NetException.Reason.IO_ERROR, "rank " + rank() + " cannot listen on aeron-udp at "
                    + bind + ": " + e, e);
        }
        int port = Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
        byte[] token = newToken(UdpWire.TOKEN_BYTES);
        AeronUdpListener listener = new AeronUdpListener(this, hellos, tag,
                new AeronUdpHandle(bind, port, HELLO_STREAM_ID, token));
        resources().register(listener);
        return listener;
    }

    @Override
    public PendingConnect connect(byte[] peerHandle, ProgressSignal signal) {
        resources().checkOpen();
        AeronUdpHandle handle = AeronUdpHandle.decode(peerHandle);
        int dataStream;
        do {
            dataStream = RANDOM.nextInt();
        } while (dataStream == HELLO_STREAM_ID || dataStream == 0);
        Aeron aeron = driver.aeron();
        String to = "aeron:udp?endpoint=" + handle.endpoint();
        long helloRegistration;
        long dataRegistration;
        try {
            helloRegistration = aeron.asyncAddExclusivePublication(to + "|term-length=" + HELLO_TERM_BYTES
                    + "|sparse=true", handle.streamId());
            dataRegistration = aeron.asyncAddPublication(to + dataParams, dataStream);
        } catch (RuntimeException e) {
            throw new NetException(NetException.Reason.IO_ERROR, "rank " + rank() + " cannot connect over aeron-udp"
                    + " to " + handle.endpoint() + ": " + e, e);
        }
        AeronUdpPendingConnect pending = new AeronUdpPendingConnect(this, handle, helloRegistration,
                dataRegistration, dataStream);
        resources().register(pending);
        return pending;
    }

    /** Wraps a data publication the peer subscribed to. */
    AeronUdpSendConnection openSend(Publication publication, AeronUdpHandle peer) {
        AeronUdpSendConnection connection = new AeronUdpSendConnection(this, publication, peer.endpoint(),
                "aeron-udp send connection rank " + rank() + " -> " + peer.endpoint() + " (stream "
                        + publication.streamId() + ", session " + publication.sessionId() + ")");
        resources().register(connection);
        return connection;
    }

    /** Wraps a data subscription whose sender's image is linked. */
    AeronUdpRecvConnection openRecv(Subscription subscription, Image image, int peerRank) {
        AeronUdpRecvConnection connection = new AeronUdpRecvConnection(this, subscription, image, peerRank,
                "aeron-udp receive connection rank " + rank() + " <- rank " + peerRank + " ("
                        + image.sourceIdentity() + ", stream " + subscription.streamId() + ", session "
                        + image.sessionId() + ")");
        resources().register(connection);
        return connection;
    }

    /** @return the host part of an Aeron endpoint for an address */
    static String host(InetAddress address) {
        String host = address.getHostAddress();
        int scope = host.indexOf('%');
        if (scope >= 0) {
            host = host.substring(0, scope);
        }
        return address.getAddress().length == 16 ? "[" + host + "]" : host;
    }

    @Override
    protected AeronUdpDriver driver() {
        return driver;
    }

    AeronUdpOptions options() {
        return options;
    }

    @Override
    public void close() {
        resources().closeAll();
    }
}
