package io.jccl.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Locale;

/**
 * The floor of an 8-byte all-reduce between two JVMs over loopback TCP: two processes exchange one fp64 value per
 * iteration through one connection (each writes its 8 bytes, then busy-polls a non-blocking read for the peer's, and
 * adds the two), with nothing else on the path. It is what a JVM reaches where Open MPI's tcp BTL takes its time,
 * the reference for issue 15's tcp 8-byte target. Run:
 *
 * <pre>
 * ./mvnw -q -B -pl benchmarks -am package -DskipTests
 * $JAVA_HOME/bin/java -cp benchmarks/target/classes io.jccl.bench.TcpExchangeFloor 200000 5
 * </pre>
 *
 * Arguments: exchanges per repetition, repetitions. It starts both processes itself and prints one line: µs per
 * exchange for each repetition (the first ones include the JIT).
 */
public final class TcpExchangeFloor {
    /** Only turns a peer that never connects into a failure. */
    private static final long CONNECT_LIMIT_NS = 30_000_000_000L;

    private TcpExchangeFloor() {
    }

    /** @param args exchanges, repetitions (and, in the two children, the rank and the port) */
    public static void main(String[] args) throws Exception {
        ExchangeFloors.main(TcpExchangeFloor.class, args,
                (rank, port, exchanges, reps) -> exchange(rank, Integer.parseInt(port), exchanges, reps),
                ExchangeFloors::freeLoopbackPort, "8-byte exchange between two JVMs over loopback TCP");
    }

    private static String exchange(int rank, int port, int exchanges, int reps) throws IOException,
            InterruptedException {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        try (SocketChannel ch = rank == 0 ? accept(address, 1)[0] : connect(address)) {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.configureBlocking(false);
            ByteBuffer out = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer in = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
            StringBuilder result = new StringBuilder();
            for (int rep = 0; rep < reps; rep++) {
                double sum = 0;
                long start = System.nanoTime();
                for (int i = 0; i < exchanges; i++) {
                    out.clear();
                    out.putDouble(0, 1.0 + rank);
                    while (out.hasRemaining()) {
                        ch.write(out);
                    }
                    in.clear();
                    while (in.hasRemaining()) {
                        if (ch.read(in) < 0) {
                            throw new IOException("the peer closed the connection");
                        }
                    }
                    sum = in.getDouble(0) + (1.0 + rank);
                }
                long ns = System.nanoTime() - start;
                if (sum != 3.0) {
                    throw new IllegalStateException("the exchange added to " + sum + ", not 3");
                }
                result.append(String.format(Locale.ROOT, rep == 0 ? "%.2f" : " %.2f", ns / 1e3 / exchanges));
            }
            return result.toString();
        }
    }

    /** Rank 0's side: {@code connections} connections accepted on {@code address}, in the order rank 1 opens them. */
    static SocketChannel[] accept(InetSocketAddress address, int connections) throws IOException,
            InterruptedException {
        long deadline = System.nanoTime() + CONNECT_LIMIT_NS;
        while (true) {
            try (ServerSocketChannel server = ServerSocketChannel.open()) {
                server.bind(address, connections);
                SocketChannel[] accepted = new SocketChannel[connections];
                for (int i = 0; i < connections; i++) {
                    accepted[i] = server.accept();
                }
                return accepted;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(10);   // the port is briefly held by the parent's probe
            }
        }
    }

    static SocketChannel connect(InetSocketAddress address) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + CONNECT_LIMIT_NS;
        while (true) {
            try {
                return SocketChannel.open(address);
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(10);   // rank 0 is not listening yet
            }
        }
    }
}
