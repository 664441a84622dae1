package io.jccl.net.aeronudp;

import io.jccl.net.NetTransport;
import io.jccl.net.PeerIdentity;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.SendConnection;
import io.jccl.net.TransportContext;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;

/**
 * A peer process for {@link AeronUdpMultiProcessTest}, killed by the test: connects over aeron-udp to the handle
 * given in hex, prints {@code CONNECTED} and sleeps forever without sending. Usage:
 * {@code AeronUdpChildMain <hex handle> <peer timeout ms>}.
 */
public final class AeronUdpChildMain {
    private AeronUdpChildMain() {
    }

    public static void main(String[] args) throws Exception {
        NetTransport transport = new AeronUdpTransportProvider().create(new TransportContext(new PeerIdentity(9,
                "host", "child"), 2, InetAddress.getLoopbackAddress(), Duration.ofSeconds(20),
                Map.of(AeronUdpOptions.PEER_TIMEOUT_MS, args[1])));
        PendingConnect pending = transport.connect(HexFormat.of().parseHex(args[0]), ProgressSignal.NONE);
        SendConnection connection;
        while ((connection = pending.poll()) == null) {
            Thread.sleep(1);
        }
        System.out.println("CONNECTED " + connection);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
