package io.jccl.net.shm;

import io.jccl.Buffer;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.UniqueId;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * One rank in its own JVM for {@link ShmMultiProcessTest}'s mismatch cases: every rank runs an all-reduce of one
 * int64 (through the box lines), then the last rank calls its second all-reduce with {@code oddCount} elements where
 * the others call it with one; with {@code oddCount} 0 the last rank halts instead, without closing anything. With
 * {@code oop} the second all-reduce is out of place and the others call it with {@value #OOP_COUNT} elements (512
 * KiB: at 2 ranks the single-copy path). Prints {@code FAILED <code>: <message>} or {@code COMPLETED}, and exits 0
 * either way. Usage: {@code ShmBoxMismatchMain rank size oddCount [oop]}.
 */
public final class ShmBoxMismatchMain {
    /** The others' count in the out-of-place case. */
    static final long OOP_COUNT = 65536;

    private ShmBoxMismatchMain() {
    }

    public static void main(String[] args) {
        int rank = Integer.parseInt(args[0]);
        int size = Integer.parseInt(args[1]);
        long oddCount = Long.parseLong(args[2]);
        boolean outOfPlace = args.length > 3 && args[3].equals("oop");
        UniqueId id = UniqueId.parse(System.getenv("JCCL_TEST_UNIQUE_ID"));
        try (Arena arena = Arena.ofShared();
             Communicator comm = Communicator.init(id, rank, size, CommConfig.builder()
                     .initTimeout(Duration.ofSeconds(60)).opTimeout(Duration.ofSeconds(120)).build())) {
            MemorySegment buffer = arena.allocate(8 * Math.max(OOP_COUNT, oddCount));
            MemorySegment result = outOfPlace ? arena.allocate(buffer.byteSize()) : buffer;
            comm.allReduce(Buffer.of(buffer), Buffer.of(buffer), 1, DataType.INT64, ReduceOp.SUM).await();
            if (oddCount == 0 && rank == size - 1) {
                Runtime.getRuntime().halt(0);   // gone without a word, as if killed
            }
            long count = rank == size - 1 ? oddCount : outOfPlace ? OOP_COUNT : 1;
            comm.allReduce(Buffer.of(buffer), Buffer.of(result), count, DataType.INT64, ReduceOp.SUM).await();
            System.out.println("COMPLETED");
        } catch (JcclException e) {
            System.out.println("FAILED " + e.code() + ": " + e.getMessage());
        }
        System.exit(0);
    }
}
