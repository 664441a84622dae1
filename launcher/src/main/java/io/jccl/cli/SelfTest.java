package io.jccl.cli;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.check.CheckBuffers;
import io.jccl.check.CollectiveCalls;
import io.jccl.check.CollectiveCheck;
import io.jccl.plan.OpKind;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs every collective on a set of communicators in this JVM with nccl-tests-style exact data, times it and
 * verifies every element of every rank's output. Sizes follow nccl-tests: {@code sizeBytes} is the size of the
 * largest buffer of the collective (for all-gather the gathered buffer), so per-rank counts of the gathering
 * collectives are {@code size / n}.
 */
public final class SelfTest {
    /** One collective the self-test runs. */
    public enum Collective {
        /** All-reduce. */
        ALLREDUCE("allreduce", OpKind.ALL_REDUCE, true),
        /** Broadcast from rank 0. */
        BROADCAST("broadcast", OpKind.BROADCAST, false),
        /** Reduce to rank 0. */
        REDUCE("reduce", OpKind.REDUCE, true),
        /** All-gather. */
        ALLGATHER("allgather", OpKind.ALL_GATHER, false),
        /** Reduce-scatter. */
        REDUCESCATTER("reducescatter", OpKind.REDUCE_SCATTER, true),
        /** All-to-all. */
        ALLTOALL("alltoall", OpKind.ALL_TO_ALL, false),
        /** All-to-all with per-peer counts. */
        ALLTOALLV("alltoallv", OpKind.ALL_TO_ALLV, false),
        /** Gather to rank 0. */
        GATHER("gather", OpKind.GATHER, false),
        /** Scatter from rank 0. */
        SCATTER("scatter", OpKind.SCATTER, false),
        /** Ring of send/recv in a group. */
        SENDRECV("sendrecv", OpKind.P2P, false),
        /** Barrier. */
        BARRIER("barrier", OpKind.BARRIER, false);

        final String label;
        final OpKind kind;
        final boolean reducing;

        Collective(String label, OpKind kind, boolean reducing) {
            this.label = label;
            this.kind = kind;
            this.reducing = reducing;
        }

        /** nccl-tests' bus bandwidth factor. */
        double busFactor(int n) {
            return switch (this) {
                case ALLREDUCE -> 2.0 * (n - 1) / n;
                case ALLGATHER, REDUCESCATTER, ALLTOALL, ALLTOALLV, GATHER, SCATTER -> (double) (n - 1) / n;
                default -> 1.0;
            };
        }
    }

    /**
     * One line of results: what ran, its nccl-tests size, and how it did.
     *
     * @param collective  what ran
     * @param sizeBytes   nccl-tests' size: bytes of the largest buffer
     * @param count       the count passed to the call
     * @param seconds     mean time of one call over all ranks
     * @param algBw       size / time in GB/s
     * @param busBw       algBw times the bus factor, GB/s
     * @param wrong       wrong elements over all ranks
     * @param error       the failure, or null
     */
    public record Result(Collective collective, long sizeBytes, long count, double seconds, double algBw,
                         double busBw, long wrong, String error) {
    }

    private final List<Communicator> comms;
    private final DataType type;
    private final ReduceOp.Kind op;
    private final int warmup;
    private final int iterations;
    private final CheckBuffers checkBuffers = new CheckBuffers();

    /**
     * Prepares a self-test over the given ranks.
     *
     * @param comms      the ranks
     * @param type       element type
     * @param op         reduction for the reducing collectives
     * @param warmup     untimed calls first
     * @param iterations timed calls
     */
    public SelfTest(List<Communicator> comms, DataType type, ReduceOp.Kind op, int warmup, int iterations) {
        this.comms = comms;
        this.type = type;
        this.op = op;
        this.warmup = warmup;
        this.iterations = iterations;
    }

    static long countFor(Collective c, long sizeBytes, int n, DataType type) {
        long elements = sizeBytes / type.sizeBytes();
        return switch (c.kind) {
            case ALL_GATHER, GATHER, REDUCE_SCATTER, SCATTER, ALL_TO_ALL, ALL_TO_ALLV -> elements / n;
            default -> elements;
        };
    }

    /**
     * Runs one collective: fills the inputs, warms up, times the calls, verifies every rank's output.
     *
     * @param collective what to run
     * @param sizeBytes  nccl-tests size in bytes
     * @return the measurement
     */
    public Result run(Collective collective, long sizeBytes) {
        int n = comms.size();
        long count = collective == Collective.BARRIER ? 0 : countFor(collective, sizeBytes, n, type);
        long size = collective == Collective.BARRIER ? 0 : nominalBytes(collective, count, n);
        if (collective == Collective.BARRIER) {
            return timed(collective, 0, 0, r -> comms.get(r).barrier(), null, null, null);
        }
        int root = 0;
        CollectiveCheck check = new CollectiveCheck(collective.kind, type, collective.reducing ? op : null, n, count,
                root, 0x5EEDL + collective.ordinal(), checkBuffers);
        MemorySegment[] send = new MemorySegment[n];
        MemorySegment[] recv = new MemorySegment[n];
        try (Arena arena = Arena.ofShared()) {
            for (int r = 0; r < n; r++) {
                long sb = check.sendElements(r) * type.sizeBytes();
                long rb = check.recvElements(r) * type.sizeBytes();
                send[r] = sb > 0 ? arena.allocate(sb, 64) : null;
                recv[r] = rb > 0 ? arena.allocate(rb, 64) : null;
                if (send[r] != null) {
                    check.fillSend(r, send[r]);
                }
                if (recv[r] != null) {
                    recv[r].fill((byte) 0);   // touch it now, not in the timed loop
                }
            }
            Buffer[] sendBuffers = new Buffer[n];
            Buffer[] recvBuffers = new Buffer[n];
            for (int r = 0; r < n; r++) {
                sendBuffers[r] = Buffer.of(send[r]);
                recvBuffers[r] = Buffer.of(recv[r]);
            }
            return timed(collective, size, count,
                    r -> CollectiveCalls.issue(comms.get(r), check, sendBuffers[r], recvBuffers[r]), check, recv, null);
        }
    }

    private long nominalBytes(Collective c, long count, int n) {
        long es = type.sizeBytes();
        return switch (c.kind) {
            case ALL_GATHER, GATHER, REDUCE_SCATTER, SCATTER, ALL_TO_ALL, ALL_TO_ALLV -> count * n * es;
            default -> count * es;
        };
    }

    private interface Issuer {
        CollectiveFuture issue(int rank);
    }

    private Result timed(Collective c, long size, long count, Issuer issuer, CollectiveCheck check,
                         MemorySegment[] recv, Object unused) {
        int n = comms.size();
        List<CollectiveFuture> futures = new ArrayList<>(n);
        try {
            for (int i = 0; i < warmup; i++) {
                round(issuer, futures);
            }
            long start = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                round(issuer, futures);
            }
            double seconds = (System.nanoTime() - start) / 1e9 / Math.max(1, iterations);
            long wrong = 0;
            if (check != null) {
                for (int r = 0; r < n; r++) {
                    if (check.recvElements(r) > 0) {
                        wrong += check.countWrong(r, recv[r]);
                    }
                }
            }
            double algBw = seconds > 0 ? size / seconds / 1e9 : 0;
            return new Result(c, size, count, seconds, algBw, algBw * c.busFactor(n), wrong, null);
        } catch (RuntimeException e) {
            return new Result(c, size, count, 0, 0, 0, 0, e.getMessage());
        }
    }

    private void round(Issuer issuer, List<CollectiveFuture> futures) {
        futures.clear();
        for (int r = 0; r < comms.size(); r++) {
            futures.add(issuer.issue(r));
        }
        for (CollectiveFuture f : futures) {
            f.await();
        }
    }
}
