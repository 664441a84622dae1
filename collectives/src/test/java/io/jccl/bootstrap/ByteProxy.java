package io.jccl.bootstrap;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy between clients and a rendezvous that records every byte in both directions and can flip one bit
 * at a chosen offset of a direction's stream (per connection): a man in the middle.
 */
final class ByteProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final long flipClientToServerAt;
    private final long flipServerToClientAt;
    private final ByteArrayOutputStream clientToServer = new ByteArrayOutputStream();
    private final ByteArrayOutputStream serverToClient = new ByteArrayOutputStream();
    private final CopyOnWriteArrayList<Socket> sockets = new CopyOnWriteArrayList<>();

    /** @param flipClientToServerAt stream offset to flip in client-to-server data, or -1; likewise the other */
    ByteProxy(InetSocketAddress target, long flipClientToServerAt, long flipServerToClientAt) throws IOException {
        this.target = target;
        this.flipClientToServerAt = flipClientToServerAt;
        this.flipServerToClientAt = flipServerToClientAt;
        this.listener = new ServerSocket(0, 50, TestRendezvous.LOOPBACK);
        Thread.ofPlatform().daemon().name("test-proxy-accept").start(this::acceptLoop);
    }

    static ByteProxy recording(InetSocketAddress target) throws IOException {
        return new ByteProxy(target, -1, -1);
    }

    InetSocketAddress address() {
        return new InetSocketAddress(TestRendezvous.LOOPBACK, listener.getLocalPort());
    }

    /** @return everything clients sent and the server sent, so far */
    byte[] allBytes() {
        synchronized (this) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            all.writeBytes(clientToServer.toByteArray());
            all.writeBytes(serverToClient.toByteArray());
            return all.toByteArray();
        }
    }

    private void acceptLoop() {
        try {
            while (true) {
                Socket client = listener.accept();
                Socket server = new Socket(target.getAddress(), target.getPort());
                sockets.add(client);
                sockets.add(server);
                AtomicInteger finished = new AtomicInteger();
                pump(client, server, flipClientToServerAt, clientToServer, "c2s", finished);
                pump(server, client, flipServerToClientAt, serverToClient, "s2c", finished);
            }
        } catch (IOException e) {
            // closed
        }
    }

    private void pump(Socket from, Socket to, long flipAt, ByteArrayOutputStream record, String name,
                      AtomicInteger finished) {
        Thread.ofPlatform().daemon().name("test-proxy-" + name).start(() -> {
            byte[] buffer = new byte[8192];
            long offset = 0;
            boolean clean = false;
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) > 0) {
                    if (flipAt >= offset && flipAt < offset + n) {
                        buffer[(int) (flipAt - offset)] ^= 0x01;
                    }
                    synchronized (this) {
                        record.write(buffer, 0, n);
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                    offset += n;
                }
                to.shutdownOutput();
                clean = true;
            } catch (IOException e) {
                // one side went away: take the other down too
            } finally {
                if (!clean || finished.incrementAndGet() == 2) {
                    closeQuietly(from);
                    closeQuietly(to);
                }
            }
        });
    }

    @Override
    public void close() {
        closeQuietly(listener);
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // best effort
        }
    }
}
