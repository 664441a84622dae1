package io.jccl.net.shm;

import io.jccl.net.IdlePeer;
import io.jccl.net.NetTransport;
import io.jccl.net.PeerIdentity;
import io.jccl.net.TransportContext;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;

/**
 * A peer process for {@link ShmPeerDeathTest}, killed by the test. Modes:
 * <ul>
 *   <li>{@code listen}: creates a transport, prints {@code HANDLE <hex>}, then accepts connections forever without
 *       posting receives;</li>
 *   <li>{@code connect <hex>}: creates a transport, connects to the handle, prints {@code CONNECTED}, and sleeps
 *       forever without sending.</li>
 * </ul>
 */
public final class ShmChildMain {
    private ShmChildMain() {
    }

    public static void main(String[] args) throws Exception {
        NetTransport transport = new ShmTransportProvider().create(new TransportContext(new PeerIdentity(9, "host",
                "child"), 2, InetAddress.getLoopbackAddress(), Duration.ofSeconds(30),
                Map.of(ShmOptions.REGISTERED_BYTES, String.valueOf(1 << 20))));
        if (args[0].equals("listen")) {
            IdlePeer.listenForever(transport, "");
        }
        IdlePeer.connectAndSleep(transport, args[1]);
    }
}
