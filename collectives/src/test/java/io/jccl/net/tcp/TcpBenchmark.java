package io.jccl.net.tcp;

import io.jccl.net.Listener;
import io.jccl.net.NetRequest;
import io.jccl.net.NetTransport;
import io.jccl.net.PeerIdentity;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;
import io.jccl.net.TransportContext;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Measures the TCP transport on loopback, by hand (not a test): the throughput of one connection carrying 4 MiB
 * messages, and the round-trip time of small-message ping-pong. Each rank runs on its own thread and busy-polls
 * its requests, as an executor would.
 *
 * <p>Run after {@code ./mvnw -q -B -pl collectives -am verify}:
 *
 * <pre>
 * java -cp collectives/target/classes:collectives/target/test-classes:$(cat /tmp/jccl-cp.txt) \
 *     io.jccl.net.tcp.TcpBenchmark [socketBufferBytes]
 * </pre>
 *
 * where {@code /tmp/jccl-cp.txt} comes from {@code ./mvnw -q -pl collectives dependency:build-classpath
 * -Dmdep.outputFile=/tmp/jccl-cp.txt}.
 */
public final class TcpBenchmark {
    private static final int MESSAGE_BYTES = 4 << 20;
    private static final int WINDOW = 8;
    private static final int WARMUP_MESSAGES = 200;
    private static final int MEASURED_MESSAGES = 1000;
    private static final int PING_BYTES = 8;
    private static final int WARMUP_ROUNDS = 20_000;
    private static final int MEASURED_ROUNDS = 50_000;

    private TcpBenchmark() {
    }

    /**
     * @param args optionally the {@code JCCL_SOCKET_BUFFER_BYTES} value
     * @throws Exception when the benchmark fails
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        if (args.length > 0) {
            options.put(TcpOptions.SOCKET_BUFFER_BYTES, args[0]);
        }
        System.out.println("JCCL_SOCKET_BUFFER_BYTES=" + options.getOrDefault(TcpOptions.SOCKET_BUFFER_BYTES,
                "default (" + TcpOptions.DEFAULT_SOCKET_BUFFER_BYTES + ")"));
        try (NetTransport a = transport(0, options); NetTransport b = transport(1, options);
             Arena arena = Arena.ofShared()) {
            Pair ab = connect(a, b);
            Pair ba = connect(b, a);
            throughput(ab, arena);
            pingPong(ab, ba, arena);
        }
    }

    private static NetTransport transport(int rank, Map<String, String> options) {
        return new TcpNetTransportProvider().create(new TransportContext(new PeerIdentity(rank, "host", "jvm"), 2,
                InetAddress.getLoopbackAddress(), Duration.ofSeconds(10), options));
    }

    private record Pair(SendConnection send, RecvConnection recv) {
    }

    private static Pair connect(NetTransport from, NetTransport to) {
        Listener listener = to.listen(ProgressSignal.NONE);
        PendingConnect pending = from.connect(listener.handle(), ProgressSignal.NONE);
        SendConnection send = null;
        RecvConnection recv = null;
        while (send == null || recv == null) {
            if (send == null) {
                send = pending.poll();
            }
            if (recv == null) {
                recv = listener.accept();
            }
        }
        listener.close();
        return new Pair(send, recv);
    }

    private static void throughput(Pair link, Arena arena) throws Exception {
        MemorySegment src = arena.allocate(MESSAGE_BYTES, 4096);
        MemorySegment dst = arena.allocate(MESSAGE_BYTES, 4096);
        for (int pass = 0; pass < 2; pass++) {
            int messages = pass == 0 ? WARMUP_MESSAGES : MEASURED_MESSAGES;
            CompletableFuture<Long> receiver = CompletableFuture.supplyAsync(() -> stream(messages, i ->
                    link.recv().irecv(dst, 0, MESSAGE_BYTES, i, null)));
            long start = System.nanoTime();
            stream(messages, i -> link.send().isend(src, 0, MESSAGE_BYTES, i, null));
            receiver.get();
            long nanos = System.nanoTime() - start;
            if (pass == 1) {
                double bytesPerSecond = (double) messages * MESSAGE_BYTES / (nanos / 1e9);
                System.out.printf("throughput, one connection, %d x 4 MiB native messages, %d in flight: %.0f MiB/s"
                        + " (%.1f Gbit/s)%n", messages, WINDOW, bytesPerSecond / (1 << 20), bytesPerSecond * 8 / 1e9);
            }
        }
    }

    private interface Post {
        NetRequest post(int i);
    }

    /** Posts {@code messages} requests keeping up to {@link #WINDOW} in flight and polls them to completion. */
    private static long stream(int messages, Post post) {
        NetRequest[] window = new NetRequest[WINDOW];
        int posted = 0;
        int completed = 0;
        while (completed < messages) {
            for (int slot = 0; slot < WINDOW; slot++) {
                if (window[slot] == null && posted < messages) {
                    window[slot] = post.post(posted);
                    if (window[slot] != null) {
                        posted++;
                    }
                }
                if (window[slot] != null && window[slot].test() != NetRequest.NOT_DONE) {
                    window[slot] = null;
                    completed++;
                }
            }
        }
        return completed;
    }

    private static void pingPong(Pair ab, Pair ba, Arena arena) throws Exception {
        MemorySegment ping = arena.allocate(PING_BYTES);
        MemorySegment pong = arena.allocate(PING_BYTES);
        long[] roundTrips = new long[MEASURED_ROUNDS];
        int total = WARMUP_ROUNDS + MEASURED_ROUNDS;
        CompletableFuture<Void> echo = CompletableFuture.runAsync(() -> {
            for (int round = 0; round < total; round++) {
                await(ab.recv().irecv(pong, 0, PING_BYTES, round, null));
                await(ba.send().isend(pong, 0, PING_BYTES, round, null));
            }
        });
        for (int round = 0; round < total; round++) {
            long start = System.nanoTime();
            NetRequest send = ab.send().isend(ping, 0, PING_BYTES, round, null);
            NetRequest recv = ba.recv().irecv(ping, 0, PING_BYTES, round, null);
            await(send);
            await(recv);
            if (round >= WARMUP_ROUNDS) {
                roundTrips[round - WARMUP_ROUNDS] = System.nanoTime() - start;
            }
        }
        echo.get();
        Arrays.sort(roundTrips);
        System.out.printf("ping-pong, %d-byte messages, %d round trips: round trip median %.1f us, p99 %.1f us"
                        + " (one-way median %.1f us)%n", PING_BYTES, MEASURED_ROUNDS, roundTrips[MEASURED_ROUNDS / 2] / 1e3,
                roundTrips[MEASURED_ROUNDS * 99 / 100] / 1e3, roundTrips[MEASURED_ROUNDS / 2] / 2e3);
    }

    private static void await(NetRequest request) {
        while (request.test() == NetRequest.NOT_DONE) {
            Thread.onSpinWait();
        }
    }
}
