package io.jccl.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Locale;

/**
 * What moving a large all-reduce's bytes over loopback TCP costs between two JVMs: two processes exchange a message
 * of the given size each way per iteration, one connection per direction with 4 MiB socket buffers as JCCL's TCP
 * transport has them (non-blocking; each writes what its socket takes and reads what has arrived until both
 * directions are done), and do nothing else — no reduction, no framing. A 2-rank all-reduce must receive the peer's
 * whole message (the ring in two halves, recursive doubling at once), so this exchange is the reference for issue
 * 15's tcp 1 MiB target: what this host's loopback TCP moves, against what Open MPI's all-reduce takes. (It is a
 * reference, not a proven bound: its times are bimodal on these VMs, 150-180 or 300-350 µs at 1 MiB from one run to
 * the next, and JCCL's pipelined all-reduce has beaten its slow mode.) Run:
 *
 * <pre>
 * ./mvnw -q -B -pl benchmarks -am package -DskipTests
 * $JAVA_HOME/bin/java -cp benchmarks/target/classes:collectives/target/classes io.jccl.bench.TcpBulkExchangeFloor 1M 2000 5
 * </pre>
 *
 * Arguments: the message size (bytes, K/M suffix), exchanges per repetition, repetitions. It starts both processes
 * itself and prints one line: µs per exchange for each repetition (the first ones include the JIT and the sockets'
 * buffer growth).
 */
public final class TcpBulkExchangeFloor {
    private static final String NAME = "TcpBulkExchangeFloor";
    /** Socket buffers as JCCL's TCP transport asks for them. */
    private static final int BUFFER_BYTES = 4 << 20;

    private TcpBulkExchangeFloor() {
    }

    /** @param args size, exchanges, repetitions (and, in the two children, the rank and the port) */
    public static void main(String[] args) throws Exception {
        MainArgs.require(args.length == 3 || args.length == 5, "usage: " + NAME + " SIZE EXCHANGES REPETITIONS");
        long bytes = MainArgs.bytes(NAME, args[0]);
        int exchanges = MainArgs.count(NAME, args[1]);
        int reps = MainArgs.count(NAME, args[2]);
        MainArgs.require(bytes >= 1 && bytes <= Integer.MAX_VALUE && exchanges >= 1 && reps >= 1,
                NAME + ": the size must be 1 byte to 2 GiB, the counts positive");
        if (args.length == 5) {
            System.out.println(exchange((int) bytes, exchanges, reps, Integer.parseInt(args[3]),
                    Integer.parseInt(args[4])));
            return;
        }
        try (ExchangeFloors.MeetingPoint port = ExchangeFloors.freeLoopbackPort()) {
            ExchangeFloors.runRanks(TcpBulkExchangeFloor.class, List.of(args[0], args[1], args[2]), port.address(),
                    bytes + "-byte exchange between two JVMs over loopback TCP");
        }
    }

    private static String exchange(int bytes, int exchanges, int reps, int rank, int port) throws IOException,
            InterruptedException {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        // One connection per direction, as JCCL's TCP transport has them: a socket that one process only writes and
        // the other only reads.
        SocketChannel[] both = rank == 0 ? TcpExchangeFloor.accept(address, 2)
                : new SocketChannel[] {TcpExchangeFloor.connect(address), TcpExchangeFloor.connect(address)};
        try (SocketChannel first = both[0]; SocketChannel second = both[1]) {
            SocketChannel sending = rank == 0 ? first : second;
            SocketChannel receiving = rank == 0 ? second : first;
            for (SocketChannel ch : new SocketChannel[] {first, second}) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.setOption(StandardSocketOptions.SO_SNDBUF, BUFFER_BYTES);
                ch.setOption(StandardSocketOptions.SO_RCVBUF, BUFFER_BYTES);
                ch.configureBlocking(false);
            }
            ByteBuffer out = ByteBuffer.allocateDirect(bytes);
            ByteBuffer in = ByteBuffer.allocateDirect(bytes);
            for (int i = 0; i < bytes; i++) {
                out.put(i, (byte) (i * 31 + rank));
            }
            StringBuilder result = new StringBuilder();
            for (int rep = 0; rep < reps; rep++) {
                long start = System.nanoTime();
                for (int i = 0; i < exchanges; i++) {
                    out.clear();
                    in.clear();
                    while (out.hasRemaining() || in.hasRemaining()) {
                        if (out.hasRemaining()) {
                            sending.write(out);
                        }
                        if (in.hasRemaining() && receiving.read(in) < 0) {
                            throw new IOException("the peer closed the connection");
                        }
                    }
                }
                long ns = System.nanoTime() - start;
                // The peer's bytes arrived whole: its pattern, at its rank.
                int peer = 1 - rank;
                for (int k = 0; k < bytes; k += 4093) {
                    if (in.get(k) != (byte) (k * 31 + peer)) {
                        throw new IllegalStateException("byte " + k + " of the exchange is wrong");
                    }
                }
                result.append(String.format(Locale.ROOT, rep == 0 ? "%.2f" : " %.2f", ns / 1e3 / exchanges));
            }
            return result.toString();
        }
    }
}
