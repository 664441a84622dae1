package io.jccl.net.shm;

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
        List<Object> keep = new ArrayList<>();
        if (args[0].equals("listen")) {
            Listener listener = transport.listen(ProgressSignal.NONE);
            System.out.println("HANDLE " + HexFormat.of().formatHex(listener.handle()));
            System.out.flush();
            while (true) {
                RecvConnection c = listener.accept();
                if (c != null) {
                    keep.add(c);
                }
                Thread.sleep(1);
            }
        }
        PendingConnect pending = transport.connect(HexFormat.of().parseHex(args[1]), ProgressSignal.NONE);
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
