package io.jccl.cli.bench.loss.tun;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.concurrent.locks.LockSupport;

/**
 * A traffic end run as a child process inside one side's namespace (a thread of the test JVM is not in it). Modes:
 *
 * <ul>
 *   <li>{@code udp-recv <bindAddress>}: prints {@code READY <port>}, receives numbered datagrams until a line
 *       {@code STOP} on stdin plus 300 ms of quiet, prints
 *       {@code RESULT received=<distinct valid> duplicates=<n> corrupt=<n>}</li>
 *   <li>{@code udp-send <address> <port> <count> <sizeBytes> [paced|blast]}: sends datagrams numbered 0..count-1;
 *       paced sends 32 then waits 1 ms, so neither the device queue nor the receiver's buffer overflows</li>
 *   <li>{@code tcp-recv <bindAddress>}: prints {@code READY <port>}, accepts one connection, checks the stream against
 *       the expected bytes and prints {@code RESULT bytes=<n> firstMismatch=<offset or -1> nanos=<first byte to
 *       end>}</li>
 *   <li>{@code tcp-send <address> <port> <bytes>}: writes the stream and closes</li>
 *   <li>{@code tcp-echo <bindAddress>}: prints {@code READY <port>}, echoes every byte of one connection</li>
 *   <li>{@code tcp-ping <address> <port> <count>}: one-byte round trips (as many again to warm up), prints
 *       {@code RESULT medianNanos=<n> p99Nanos=<n> minNanos=<n>}</li>
 * </ul>
 */
public final class LinkPeer {
    private static final int TCP_CHUNK_BYTES = 256 * 1024;

    private LinkPeer() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "udp-recv" -> udpReceive(InetAddress.getByName(args[1]));
            case "udp-send" -> udpSend(InetAddress.getByName(args[1]), Integer.parseInt(args[2]),
                    Integer.parseInt(args[3]), Integer.parseInt(args[4]), args.length < 6 || args[5].equals("paced"));
            case "tcp-recv" -> tcpReceive(InetAddress.getByName(args[1]));
            case "tcp-send" -> tcpSend(InetAddress.getByName(args[1]), Integer.parseInt(args[2]),
                    Long.parseLong(args[3]));
            case "tcp-echo" -> tcpEcho(InetAddress.getByName(args[1]));
            case "tcp-ping" -> tcpPing(InetAddress.getByName(args[1]), Integer.parseInt(args[2]),
                    Integer.parseInt(args[3]));
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    /**
     * Period of the TCP test stream: a prime, so no chunk size used here divides it, and a misplaced chunk shows.
     * The stream is a table repeated, so making and checking it is copying and comparing arrays, and the peers
     * leave the CPU to the relay.
     */
    private static final int STREAM_PERIOD_BYTES = 1_048_573;
    private static final byte[] STREAM = streamTable();

    private static byte[] streamTable() {
        byte[] table = new byte[STREAM_PERIOD_BYTES];
        new java.util.SplittableRandom(42).nextBytes(table);
        return table;
    }

    /** Fills {@code buffer[0, n)} with the stream from {@code offset}. */
    private static void fillStream(byte[] buffer, int n, long offset) {
        int done = 0;
        while (done < n) {
            int from = (int) ((offset + done) % STREAM_PERIOD_BYTES);
            int run = Math.min(n - done, STREAM_PERIOD_BYTES - from);
            System.arraycopy(STREAM, from, buffer, done, run);
            done += run;
        }
    }

    /** @return the first index in {@code buffer[0, n)} that differs from the stream at {@code offset}, or -1 */
    private static int mismatch(byte[] buffer, int n, long offset) {
        int done = 0;
        while (done < n) {
            int from = (int) ((offset + done) % STREAM_PERIOD_BYTES);
            int run = Math.min(n - done, STREAM_PERIOD_BYTES - from);
            int at = java.util.Arrays.mismatch(buffer, done, done + run, STREAM, from, from + run);
            if (at >= 0) {
                return done + at;
            }
            done += run;
        }
        return -1;
    }

    private static byte datagramByte(int sequence, int index) {
        return (byte) (sequence * 31 + index * 7);
    }

    private static void udpReceive(InetAddress bind) throws IOException, InterruptedException {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(bind, 0))) {
            socket.setReceiveBufferSize(4 << 20);
            socket.setSoTimeout(50);
            System.out.println("READY " + socket.getLocalPort());
            System.out.flush();
            Thread stdin = Thread.ofPlatform().daemon().start(LinkPeer::awaitStop);
            BitSet seen = new BitSet();
            long duplicates = 0;
            long corrupt = 0;
            byte[] buffer = new byte[65_536];
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            long quietSinceNs = System.nanoTime();
            while (stdin.isAlive() || System.nanoTime() - quietSinceNs < 300_000_000L) {
                try {
                    packet.setLength(buffer.length);
                    socket.receive(packet);
                } catch (SocketTimeoutException e) {
                    continue;
                }
                quietSinceNs = System.nanoTime();
                int length = packet.getLength();
                if (length < 4) {
                    corrupt++;
                    continue;
                }
                int sequence = ByteBuffer.wrap(buffer, 0, 4).getInt();
                boolean ok = sequence >= 0;
                for (int i = 4; ok && i < length; i++) {
                    ok = buffer[i] == datagramByte(sequence, i);
                }
                if (!ok) {
                    corrupt++;
                } else if (seen.get(sequence)) {
                    duplicates++;
                } else {
                    seen.set(sequence);
                }
            }
            System.out.println("RESULT received=" + seen.cardinality() + " duplicates=" + duplicates + " corrupt="
                    + corrupt);
        }
    }

    /** Returns once stdin says STOP or ends. */
    private static void awaitStop() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && !line.strip().equals("STOP")) {
                // wait
            }
        } catch (IOException e) {
            // treated as STOP
        }
    }

    private static void udpSend(InetAddress to, int port, int count, int sizeBytes, boolean paced)
            throws IOException {
        byte[] buffer = new byte[Math.max(4, sizeBytes)];
        try (DatagramSocket socket = new DatagramSocket()) {
            socket.connect(to, port);
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            for (int sequence = 0; sequence < count; sequence++) {
                ByteBuffer.wrap(buffer, 0, 4).putInt(sequence);
                for (int i = 4; i < buffer.length; i++) {
                    buffer[i] = datagramByte(sequence, i);
                }
                socket.send(packet);
                if (paced && sequence % 32 == 31) {
                    LockSupport.parkNanos(1_000_000);
                }
            }
        }
        System.out.println("SENT " + count);
    }

    private static void tcpReceive(InetAddress bind) throws IOException {
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress(bind, 0));
            System.out.println("READY " + server.getLocalPort());
            System.out.flush();
            try (Socket socket = server.accept(); InputStream in = socket.getInputStream()) {
                byte[] buffer = new byte[TCP_CHUNK_BYTES];
                long total = 0;
                long firstMismatch = -1;
                long startNs = 0;
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (total == 0 && n > 0) {
                        startNs = System.nanoTime();
                    }
                    if (firstMismatch < 0) {
                        int at = mismatch(buffer, n, total);
                        if (at >= 0) {
                            firstMismatch = total + at;
                        }
                    }
                    total += n;
                }
                long nanos = System.nanoTime() - startNs;
                System.out.println("RESULT bytes=" + total + " firstMismatch=" + firstMismatch + " nanos=" + nanos);
            }
        }
    }

    private static void tcpEcho(InetAddress bind) throws IOException {
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress(bind, 0));
            System.out.println("READY " + server.getLocalPort());
            System.out.flush();
            try (Socket socket = server.accept()) {
                socket.setTcpNoDelay(true);
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                int b;
                while ((b = in.read()) >= 0) {
                    out.write(b);
                }
            }
        }
    }

    private static void tcpPing(InetAddress to, int port, int count) throws IOException {
        long[] nanos = new long[count];
        try (Socket socket = new Socket(to, port)) {
            socket.setTcpNoDelay(true);
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            for (int i = -count; i < count; i++) { // the first half warms up
                long startNs = System.nanoTime();
                out.write(i & 0x7f);
                if (in.read() < 0) {
                    throw new IOException("echo closed");
                }
                if (i >= 0) {
                    nanos[i] = System.nanoTime() - startNs;
                }
            }
        }
        java.util.Arrays.sort(nanos);
        System.out.println("RESULT medianNanos=" + nanos[count / 2] + " p99Nanos=" + nanos[count * 99 / 100]
                + " minNanos=" + nanos[0]);
    }

    private static void tcpSend(InetAddress to, int port, long bytes) throws IOException {
        byte[] buffer = new byte[TCP_CHUNK_BYTES];
        try (Socket socket = new Socket(to, port); OutputStream out = socket.getOutputStream()) {
            long offset = 0;
            while (offset < bytes) {
                int n = (int) Math.min(buffer.length, bytes - offset);
                fillStream(buffer, n, offset);
                out.write(buffer, 0, n);
                offset += n;
            }
            socket.shutdownOutput();
            // Wait for the receiver's close, so the sender's exit does not race the last bytes.
            socket.getInputStream().read();
        }
        System.out.println("SENT " + bytes);
    }
}
