package io.jccl.metaroce.simnet;

import io.jccl.metaroce.offload.MetaRoceDataPath;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * A data path whose wire is the simulator: the endpoint is a node of the {@link io.jccl.metaroce.sim.Simulator},
 * which hands it datagrams, runs its timers and collects what it transmits, so {@link #doWork()} has nothing to do.
 * Path {@code p} of node {@code n} has the made-up address {@code 10.x.y.z:(1024 + p)} with {@code x.y.z} the node id,
 * so listener handles carry node ids through the transport's ordinary rendezvous.
 */
public final class SimDataPath implements MetaRoceDataPath {
    /** Node ids fit the 24 bits of an address's last three bytes. */
    static final long MAX_NODE_ID = (1 << 24) - 1;
    private static final int FIRST_PORT = 1024;

    private final Endpoint endpoint;
    private final long nodeId;
    private final int paths;
    private boolean closed;

    /**
     * @param config the endpoint's settings
     * @param random the endpoint's random source (seeded)
     * @param nodeId the simulator node the endpoint is
     */
    public SimDataPath(EndpointConfig config, RandomGenerator random, long nodeId) {
        if (nodeId < 0 || nodeId > MAX_NODE_ID) {
            throw new IllegalArgumentException("node id " + nodeId + " is outside 0-" + MAX_NODE_ID);
        }
        this.endpoint = new Endpoint(config, random);
        this.nodeId = nodeId;
        this.paths = config.paths();
    }

    /** @return the simulator node this data path is */
    public long nodeId() {
        return nodeId;
    }

    /** @return whether {@link #close()} was called: the node drops what arrives and runs no timers */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public Endpoint endpoint() {
        return endpoint;
    }

    @Override
    public List<InetSocketAddress> localAddresses() {
        List<InetSocketAddress> out = new ArrayList<>(paths);
        for (int p = 0; p < paths; p++) {
            out.add(new InetSocketAddress(address(nodeId), FIRST_PORT + p));
        }
        return out;
    }

    @Override
    public long addPeer(List<InetSocketAddress> pathAddresses) {
        if (pathAddresses.size() != paths) {
            throw new IllegalArgumentException("the peer has " + pathAddresses.size() + " paths, this endpoint "
                    + paths);
        }
        byte[] a = pathAddresses.getFirst().getAddress().getAddress();
        if (a.length != 4 || a[0] != 10) {
            throw new IllegalArgumentException("not a simulated node's address: " + pathAddresses.getFirst());
        }
        return (a[1] & 0xFFL) << 16 | (a[2] & 0xFFL) << 8 | (a[3] & 0xFFL);
    }

    @Override
    public int doWork() {
        return 0;
    }

    @Override
    public long nextTimeoutNs() {
        return closed ? Long.MAX_VALUE : endpoint.nextTimeoutNs();
    }

    @Override
    public long datagramsSent() {
        return 0;
    }

    @Override
    public long datagramsReceived() {
        return 0;
    }

    @Override
    public long socketsRebound() {
        return 0;
    }

    @Override
    public void close() {
        closed = true;
    }

    static InetAddress address(long nodeId) {
        try {
            return InetAddress.getByAddress(new byte[] {10, (byte) (nodeId >>> 16), (byte) (nodeId >>> 8),
                    (byte) nodeId});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);   // four bytes are always a valid IPv4 address
        }
    }
}
