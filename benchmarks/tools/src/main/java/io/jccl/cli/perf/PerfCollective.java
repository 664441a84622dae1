package io.jccl.cli.perf;

import io.jccl.plan.OpKind;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The collectives {@code jccl perf} measures, named as nccl-tests' programs ({@code all_reduce} for
 * {@code all_reduce_perf}), with nccl-tests' size convention and bus-bandwidth factor.
 */
public enum PerfCollective {
    /** All-reduce. */
    ALL_REDUCE(OpKind.ALL_REDUCE, true, false, true, false),
    /** All-gather; size is the gathered buffer. */
    ALL_GATHER(OpKind.ALL_GATHER, false, false, true, true),
    /** Broadcast from the root. */
    BROADCAST(OpKind.BROADCAST, false, true, true, false),
    /** Reduce to the root. */
    REDUCE(OpKind.REDUCE, true, true, true, false),
    /** Reduce-scatter; size is the send buffer. */
    REDUCE_SCATTER(OpKind.REDUCE_SCATTER, true, false, true, true),
    /** All-to-all; size is each rank's send buffer. JCCL has no in-place all-to-all. */
    ALLTOALL(OpKind.ALL_TO_ALL, false, false, false, true),
    /** Gather to the root; size is the root's receive buffer. */
    GATHER(OpKind.GATHER, false, true, true, true),
    /** Scatter from the root; size is the root's send buffer. */
    SCATTER(OpKind.SCATTER, false, true, true, true),
    /** Every rank sends to rank+1 and receives from rank-1, in one group. */
    SENDRECV(OpKind.P2P, false, false, false, false),
    /** nccl-tests' hypercube: log2(n) rounds of grouped send/recv with rank^mask, an all-gather. */
    HYPERCUBE(OpKind.ALL_GATHER, false, false, true, true);

    /** The collective whose expected output {@link io.jccl.check.CollectiveCheck} computes. */
    final OpKind checkKind;
    /** Whether it takes a reduction (-o). */
    final boolean reducing;
    /** Whether it has a root (-r). */
    final boolean rooted;
    /** Whether an in-place form runs (else the in-place columns print N/A). */
    final boolean inPlace;
    /** Whether the count passed to the call is size / n (per rank or per block), else size. */
    final boolean perRankCount;

    PerfCollective(OpKind checkKind, boolean reducing, boolean rooted, boolean inPlace, boolean perRankCount) {
        this.checkKind = checkKind;
        this.reducing = reducing;
        this.rooted = rooted;
        this.inPlace = inPlace;
        this.perRankCount = perRankCount;
    }

    /** @return the command-line name, e.g. {@code all_reduce} */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return every command-line name, comma-separated */
    public static String names() {
        return Arrays.stream(values()).map(PerfCollective::cliName).collect(Collectors.joining(", "));
    }

    /**
     * @param name a command-line name ({@code all_reduce}, also {@code allreduce} or {@code all_reduce_perf})
     * @return the collective
     * @throws IllegalArgumentException naming the valid ones
     */
    public static PerfCollective parse(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT).replaceFirst("_perf$", "");
        for (PerfCollective c : values()) {
            if (c.cliName().equals(n) || c.cliName().replace("_", "").equals(n)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown collective '" + name + "'; expected one of " + names());
    }

    /**
     * nccl-tests' bus-bandwidth factor: busbw = algbw * factor.
     *
     * @param n ranks
     * @return 2(n-1)/n for all-reduce; (n-1)/n for the gathering, scattering and all-to-all ones and hypercube;
     *         1 for broadcast, reduce and sendrecv
     */
    public double busFactor(int n) {
        return switch (this) {
            case ALL_REDUCE -> 2.0 * (n - 1) / n;
            case ALL_GATHER, REDUCE_SCATTER, ALLTOALL, GATHER, SCATTER, HYPERCUBE -> (double) (n - 1) / n;
            case BROADCAST, REDUCE, SENDRECV -> 1.0;
        };
    }

    /**
     * The count passed to the call for a nominal size, as nccl-tests: size / typesize, divided by n for the
     * collectives whose size is the whole gathered, scattered or exchanged buffer.
     *
     * @param sizeBytes nominal size
     * @param n         ranks
     * @param typeBytes element size
     * @return elements
     */
    public long count(long sizeBytes, int n, int typeBytes) {
        long elements = sizeBytes / typeBytes;
        return perRankCount ? elements / n : elements;
    }

    /**
     * @param count     the call's count
     * @param n         ranks
     * @param typeBytes element size
     * @return the size column: bytes of the largest buffer
     */
    public long sizeBytes(long count, int n, int typeBytes) {
        return (perRankCount ? count * n : count) * typeBytes;
    }
}
