package io.jccl.net.aeronipc;

import io.jccl.net.Listener;
import io.jccl.net.NetTransport;
import io.jccl.net.PeerIdentity;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;
import io.jccl.net.TransportContext;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
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
        List<Object> keep = new ArrayList<>();
        if (args[0].equals("listen")) {
            Listener listener = transport.listen(ProgressSignal.NONE);
            System.out.println("HANDLE " + HexFormat.of().formatHex(listener.handle()) + " HOSTS "
                    + ((AeronIpcTransport) transport).driver().hostsDriver());
            System.out.flush();
            while (true) {
                RecvConnection c = listener.accept();
                if (c != null) {
                    keep.add(c);
                }
                Thread.sleep(1);
            }
        }
        PendingConnect pending = transport.connect(HexFormat.of().parseHex(args[2]), ProgressSignal.NONE);
        while (true) {
            Object c = pending.poll();
            if (c != null) {
                keep.add(c);
                break;
            }
            Thread.sleep(1);
        }
        System.out.println("CONNECTED");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
