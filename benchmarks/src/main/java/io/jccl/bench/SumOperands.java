package io.jccl.bench;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The fp32 sum all-reduce that {@link AllReduceWindows} and {@link CallTimeHistogram} time: a send and a receive
 * buffer, their {@link Buffer}s made once so that a call allocates nothing.
 *
 * @param send  the input (its bytes all 1)
 * @param recv  the output out of place
 * @param count fp32 elements per buffer
 */
record SumOperands(Buffer send, Buffer recv, long count) {
    /** @return two buffers of {@code bytes} from {@code arena}, the send buffer's bytes all 1 */
    static SumOperands allocate(Arena arena, long bytes) {
        MemorySegment send = arena.allocate(bytes, 64);
        MemorySegment recv = arena.allocate(bytes, 64);
        send.fill((byte) 1);
        return new SumOperands(Buffer.of(send), Buffer.of(recv), bytes / Float.BYTES);
    }

    /** One all-reduce, in place (into the send buffer) or out of place, awaited. */
    void allReduce(Communicator comm, boolean inPlace) {
        comm.allReduce(send, inPlace ? send : recv, count, DataType.FLOAT32, ReduceOp.SUM).await();
    }
}
