package io.jccl.net.aeronipc;

import io.jccl.net.IdlePeer;
import io.jccl.net.NetTransport;
import io.jccl.net.PeerIdentity;
import io.jccl.net.TransportContext;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;

/**
 * A peer process for {@link AeronIpcDriverTest}, killed by the test. Modes:
 * <ul>
 *   <li>{@code listen <dir>}: creates a transport (hosting the driver when it is first), prints
 *       {@code HANDLE <hex> HOSTS <true|false>}, then accepts connections forever without posting receives;</li>
 *   <li>{@code connect <dir> <hex>}: creates a transport, connects to the handle, prints {@code CONNECTED}, and
 *       sleeps forever without sending.</li>
 * </ul>
 */
public final class AeronIpcChildMain {
    private AeronIpcChildMain() {
    }

    public static void main(String[] args) throws Exception {
        String dir = args[1];
        NetTransport transport = new AeronIpcTransportProvider().create(new TransportContext(new PeerIdentity(9, "host",
                "child"), 2, InetAddress.getLoopbackAddress(), Duration.ofSeconds(20),
                Map.of(AeronIpcOptions.DIR, dir, AeronIpcOptions.TERM_BYTES, String.valueOf(1 << 20))));
        if (args[0].equals("listen")) {
            IdlePeer.listenForever(transport, "HOSTS " + ((AeronIpcTransport) transport).driver().hostsDriver());
        }
        IdlePeer.connectAndSleep(transport, args[2]);
    }
}
