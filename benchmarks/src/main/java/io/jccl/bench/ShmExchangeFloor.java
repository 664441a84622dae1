package io.jccl.bench;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * The floor of an 8-byte all-reduce between two JVMs on this host: two processes exchange one fp64 value through a
 * shared cache line each (value, then a sequence number published with release semantics; the peer spins on it with
 * acquire semantics) and add the two, with nothing else on the path: no queue, no plan, no future. It is what a JVM
 * reaches where Open MPI's vader reaches 0.2 µs, the reference for issue 15's 8-byte target. Run:
 *
 * <pre>
 * ./mvnw -q -B -pl benchmarks -am package -DskipTests
 * $JAVA_HOME/bin/java -cp benchmarks/target/classes io.jccl.bench.ShmExchangeFloor 1000000 5
 * </pre>
 *
 * Arguments: exchanges per repetition, repetitions. It starts both processes itself and prints one line: µs per
 * exchange for each repetition (the first ones include the JIT).
 */
public final class ShmExchangeFloor {
    private static final VarHandle SEQ = ValueLayout.JAVA_LONG.varHandle();
    private static final long LINE = 64;

    private ShmExchangeFloor() {
    }

    /** @param args exchanges, repetitions (and, in the two children, the rank and the shared file) */
    public static void main(String[] args) throws Exception {
        ExchangeFloors.main(ShmExchangeFloor.class, args,
                (rank, file, exchanges, reps) -> exchange(rank, Path.of(file), exchanges, reps), () -> {
                    Path file = Files.createTempFile(Path.of("/dev/shm"), "jccl-floor-", ".bin");
                    return new ExchangeFloors.MeetingPoint(file.toString(), () -> Files.deleteIfExists(file));
                }, "8-byte exchange between two JVMs through shared memory");
    }

    private static String exchange(int rank, Path file, int exchanges, int reps) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
             Arena arena = Arena.ofShared()) {
            MemorySegment m = ch.map(FileChannel.MapMode.READ_WRITE, 0, 2 * LINE, arena);
            long mine = rank * LINE;
            long theirs = (1 - rank) * LINE;
            StringBuilder out = new StringBuilder();
            for (int rep = 0; rep < reps; rep++) {
                long base = (long) rep * exchanges;
                double sum = 0;
                long start = System.nanoTime();
                for (int i = 1; i <= exchanges; i++) {
                    long seq = base + i;
                    m.set(ValueLayout.JAVA_DOUBLE, mine + 8, 1.0 + rank);
                    SEQ.setRelease(m, mine, seq);
                    while ((long) SEQ.getAcquire(m, theirs) < seq) {
                        Thread.onSpinWait();
                    }
                    sum = m.get(ValueLayout.JAVA_DOUBLE, mine + 8) + m.get(ValueLayout.JAVA_DOUBLE, theirs + 8);
                }
                long ns = System.nanoTime() - start;
                if (sum != 3.0) {
                    throw new IllegalStateException("the exchange added to " + sum + ", not 3");
                }
                out.append(String.format(Locale.ROOT, rep == 0 ? "%.3f" : " %.3f", ns / 1e3 / exchanges));
            }
            return out.toString();
        }
    }
}
