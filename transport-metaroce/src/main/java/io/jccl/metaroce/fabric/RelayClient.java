package io.jccl.metaroce.fabric;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Registers an endpoint with an {@link ImpairmentProxy} (at startup: it blocks). The endpoint then publishes the
 * fronts it gets back to its peers instead of its own path addresses, and every datagram it exchanges with them
 * crosses the proxy.
 */
public final class RelayClient {
    /** Requests sent before giving up: one at first, then one each time a wait of timeout/attempts passes. */
    public static final int ATTEMPTS = 8;

    private RelayClient() {
    }

    /**
     * Registers the endpoint whose path sockets are {@code pathAddresses}; the same addresses get the same fronts
     * each time (so registering again after a lost reply is harmless).
     *
     * @param relayControl  the proxy's control address ({@link ImpairmentProxy#controlAddress()}, or what
     *                      {@code jccl fabric --proxy} printed)
     * @param pathAddresses the endpoint's path socket addresses, in path order: 1-64, IPv4, not the wildcard
     * @param timeout       how long to keep asking, over {@link #ATTEMPTS} requests
     * @return the fronts, in path order: peers send path {@code p} to front {@code p}
     * @throws SocketTimeoutException   when no reply came, naming the relay's address
     * @throws IOException              when the relay refused, or the socket failed
     * @throws IllegalArgumentException when an address cannot be registered
     */
    public static List<InetSocketAddress> register(InetSocketAddress relayControl,
                                                   List<InetSocketAddress> pathAddresses, Duration timeout)
            throws IOException {
        Objects.requireNonNull(relayControl, "relayControl");
        Objects.requireNonNull(timeout, "timeout");
        if (pathAddresses.isEmpty() || pathAddresses.size() > RelayControl.MAX_PATHS) {
            throw new IllegalArgumentException("register: " + pathAddresses.size() + " path addresses, must be 1-"
                    + RelayControl.MAX_PATHS);
        }
        for (InetSocketAddress a : pathAddresses) {
            if (!RelayControl.carriable(a)) {
                throw new IllegalArgumentException("register: " + a + " is not an IPv4 address with a port (nor the "
                        + "wildcard) the relay could send to");
            }
        }
        if (relayControl.isUnresolved()) {
            throw new IllegalArgumentException("register: the relay's address " + relayControl + " is unresolved");
        }
        long waitMs = Math.max(1, timeout.toMillis() / ATTEMPTS);
        long nonce = ThreadLocalRandom.current().nextLong();
        ByteBuffer request = ByteBuffer.allocate(RelayControl.MAX_LENGTH);
        RelayControl.encode(request, RelayControl.REGISTER, RelayControl.OK, nonce, pathAddresses);
        byte[] in = new byte[RelayControl.MAX_LENGTH + 1];
        try (DatagramSocket socket = new DatagramSocket()) {
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                socket.send(new DatagramPacket(request.array(), request.limit(), relayControl));
                long deadline = System.nanoTime() + waitMs * 1_000_000;
                long leftMs = waitMs;
                while (leftMs > 0) {
                    socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, leftMs));
                    DatagramPacket reply = new DatagramPacket(in, in.length);
                    try {
                        socket.receive(reply);
                    } catch (SocketTimeoutException e) {
                        break;   // ask again
                    }
                    List<InetSocketAddress> fronts = answer(reply, relayControl, nonce, pathAddresses.size());
                    if (fronts != null) {
                        return fronts;
                    }
                    leftMs = (deadline - System.nanoTime()) / 1_000_000;
                }
            }
        }
        throw new SocketTimeoutException("no registration reply from the relay at " + address(relayControl)
                + " after " + ATTEMPTS + " requests in " + timeout.toMillis() + " ms (is a proxy relay, `jccl "
                + "fabric --proxy`, listening there?)");
    }

    /** @return the fronts in a reply to this request, null when the datagram is something else */
    private static List<InetSocketAddress> answer(DatagramPacket reply, InetSocketAddress relay, long nonce,
                                                  int paths) throws IOException {
        if (!relay.equals(reply.getSocketAddress())) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(reply.getData(), 0, reply.getLength()).slice();
        int count = RelayControl.check(b, RelayControl.REGISTERED);
        if (count < 0 || RelayControl.nonce(b) != nonce) {
            return null;
        }
        int status = RelayControl.status(b);
        if (status != RelayControl.OK) {
            throw new IOException("the relay at " + address(relay) + " refused the registration: "
                    + (status == RelayControl.REFUSED_LIMIT ? "it has as many endpoints as it takes"
                    : "it could not open sockets for it"));
        }
        List<InetSocketAddress> fronts = RelayControl.addresses(b, count);
        if (fronts == null || fronts.size() != paths) {
            throw new IOException("the relay at " + address(relay) + " answered with " + count + " fronts for "
                    + paths + " paths");
        }
        return List.copyOf(fronts);
    }

    private static String address(InetSocketAddress a) {
        return a.getAddress().getHostAddress() + ":" + a.getPort();
    }
}
