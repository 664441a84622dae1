package io.jccl.bench;

import io.jccl.Algorithm;
import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Time of one fp32 SUM all-reduce over ranks in this JVM, per algorithm, message size and transport: the
 * evidence behind the tuner's choices (docs/tuning.md). One invocation issues the call on every rank and waits
 * for all of them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AllReduceBenchmark {
    /** Created by JMH. */
    public AllReduceBenchmark() {
    }

    /** Ranks (threads of this JVM). */
    @Param({"4"})
    public int ranks;

    /** Bytes per rank. */
    @Param({"64", "4096", "65536", "1048576", "16777216"})
    public long sizeBytes;

    /** The algorithm; AUTO is the tuner's choice. */
    @Param({"RING", "TREE", "RECURSIVE_DOUBLING", "AUTO"})
    public Algorithm algorithm;

    /** local (in-JVM) or tcp (loopback). */
    @Param({"local", "tcp"})
    public String transport;

    private List<Communicator> comms;
    private Arena arena;
    private MemorySegment[] send;
    private MemorySegment[] recv;
    private Buffer[] sendBuffers;
    private Buffer[] recvBuffers;
    private CollectiveFuture[] pending;

    /** Creates the ranks and touches the buffers once. */
    @Setup(Level.Trial)
    public void setUp() {
        comms = Communicator.local(ranks, CommConfig.builder().algorithm(algorithm).transport(transport).build());
        arena = Arena.ofShared();
        send = new MemorySegment[ranks];
        recv = new MemorySegment[ranks];
        sendBuffers = new Buffer[ranks];
        recvBuffers = new Buffer[ranks];
        pending = new CollectiveFuture[ranks];
        for (int r = 0; r < ranks; r++) {
            send[r] = arena.allocate(sizeBytes, 64);
            recv[r] = arena.allocate(sizeBytes, 64);
            send[r].fill((byte) 1);
            recv[r].fill((byte) 0);
            sendBuffers[r] = Buffer.of(send[r]);
            recvBuffers[r] = Buffer.of(recv[r]);
        }
    }

    /** Closes the ranks. */
    @TearDown(Level.Trial)
    public void tearDown() {
        comms.forEach(Communicator::close);
        arena.close();
    }

    /** One all-reduce on every rank. */
    @Benchmark
    public void allReduce() {
        long count = sizeBytes / Float.BYTES;
        for (int r = 0; r < ranks; r++) {
            pending[r] = comms.get(r).allReduce(sendBuffers[r], recvBuffers[r], count, DataType.FLOAT32,
                    ReduceOp.SUM);
        }
        for (CollectiveFuture f : pending) {
            f.await();
        }
    }
}
