package io.jccl.net;

import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The body of a peer process that tests kill to see how a transport notices a dead peer: it listens or connects and
 * then keeps still, moving no data. Its output is what the test reads: {@code HANDLE <hex>[ <note>]} once listening,
 * {@code CONNECTED} once connected.
 */
public final class IdlePeer {
    private IdlePeer() {
    }

    /**
     * Prints {@code HANDLE <hex>} (and {@code note}, when not empty) for a new listener of {@code transport}, then
     * accepts connections forever without posting receives.
     */
    public static void listenForever(NetTransport transport, String note) throws InterruptedException {
        Listener listener = transport.listen(ProgressSignal.NONE);
        System.out.println("HANDLE " + HexFormat.of().formatHex(listener.handle()) + (note.isEmpty() ? "" : " " + note));
        System.out.flush();
        List<RecvConnection> keep = new ArrayList<>();
        while (true) {
            RecvConnection c = listener.accept();
            if (c != null) {
                keep.add(c);   // held, never read: the other side sees a live peer that takes nothing
            }
            Thread.sleep(1);
        }
    }

    /**
     * Connects {@code transport} to the listener whose handle is {@code handleHex}, prints {@code CONNECTED}, then
     * sleeps forever without sending.
     */
    public static void connectAndSleep(NetTransport transport, String handleHex) throws InterruptedException {
        PendingConnect pending = transport.connect(HexFormat.of().parseHex(handleHex), ProgressSignal.NONE);
        SendConnection connection = null;
        while (connection == null) {
            connection = pending.poll();
            Thread.sleep(1);
        }
        System.out.println("CONNECTED");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
        Reference.reachabilityFence(connection);   // the connection stays open while the process sleeps
    }
}
