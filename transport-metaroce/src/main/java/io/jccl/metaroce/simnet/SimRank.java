package io.jccl.metaroce.simnet;

import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.check.WorkloadOp;
import io.jccl.check.WorkloadRank;
import io.jccl.core.SteppedCommunicator;
import io.jccl.metaroce.net.MetaRoceNetTransport;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.PendingConnect;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One simulated rank of the whole stack: connects a data and a control connection to every peer over its
 * {@code metaroce} transport (as communicator creation does), builds a {@link SteppedCommunicator} on them, runs the
 * workload one operation at a time (the real API, plans, runner and executor), checks every element of every result,
 * then closes the communicator and the transport. A rank chosen to crash stops dead when it reaches its operation.
 */
final class SimRank extends PeeredProcess {
    private static final int HELLO_MAGIC = 0x4A43484C;
    private static final int HELLO_BYTES = 12;
    private static final long HELLO_TAG = 0x53494D48L;
    private static final int DATA = 0;
    private static final int CONTROL = 1;
    /** Steps of the executor per simulator interaction, at most: enough to run a small operation through. */
    private static final int STEPS_PER_INTERACTION = 64;
    /** Slack on top of the timeouts before a rank counts as hung. */
    private static final long HANG_SLACK_NS = 2_000_000_000L;

    enum Phase { CONNECT, RUN, CLOSE_COMM, CLOSE_TRANSPORT, DONE, CRASHED, HUNG }

    private final int rank;
    private final int size;
    private final SimulatedCluster cluster;
    private final SimSettings settings;
    private final List<WorkloadOp> ops;
    private final WorkloadRank workload;
    private final int crashAtOp;
    private final CollectivesSimulation.Shared shared;

    // Connecting: index 2 * peer + kind.
    private final PendingConnect[] pending;
    private final SendConnection[] sends;
    private final NetRequest[] helloSends;
    private final RecvConnection[] accepted;
    private final NetRequest[] helloRecvs;
    private final RecvConnection[] recvs;
    private final MemorySegment helloOut;
    private final MemorySegment helloIn;
    private int acceptedCount;
    private int identified;
    private long phaseStartNs;

    private SteppedCommunicator stepped;
    private int opIndex;
    private CollectiveFuture future;
    private long issuedAtNs;
    private boolean closeRequested;
    /** Tests of the judge: whether this rank spoiled a result already ({@link SimSettings#spoilAtOp()}). */
    private boolean spoiled;

    Phase phase = Phase.CONNECT;
    long completedOps;
    long wrong;
    /** The first operation that failed here, and how; null when none did. */
    JcclException error;
    String errorOp;
    long errorAtNs = -1;
    String problem;
    String hang;

    SimRank(int rank, int size, SimulatedCluster cluster, MetaRoceNetTransport transport, SimSettings settings,
            List<WorkloadOp> ops, long seed, int crashAtOp, CollectivesSimulation.Shared shared, Arena arena) {
        super(transport);
        this.rank = rank;
        this.size = size;
        this.cluster = cluster;
        this.settings = settings;
        this.ops = ops;
        this.crashAtOp = crashAtOp;
        this.shared = shared;
        this.workload = new WorkloadRank(rank, size, seed, ops);
        this.pending = new PendingConnect[2 * size];
        this.sends = new SendConnection[2 * size];
        this.helloSends = new NetRequest[2 * size];
        this.accepted = new RecvConnection[2 * size];
        this.helloRecvs = new NetRequest[2 * size];
        this.recvs = new RecvConnection[2 * size];
        this.helloOut = arena.allocate(2L * size * HELLO_BYTES, 8);
        this.helloIn = arena.allocate(2L * size * HELLO_BYTES, 8);
    }

    @Override
    public String toString() {
        return "rank " + rank + " " + phase + " at op " + opIndex;
    }

    boolean finished() {
        return phase == Phase.DONE || phase == Phase.CRASHED || phase == Phase.HUNG;
    }

    /** After the run: frees everything this rank holds, whatever state it stopped in. */
    void release() {
        transport.closeNow();   // first: it may still be sending from the communicator's memory
        if (stepped != null) {
            stepped.release();
        }
        workload.close();
    }

    @Override
    public long nextDeadlineNs() {
        long next = switch (phase) {
            case CONNECT -> phaseStartNs + settings.opTimeoutNs() + HANG_SLACK_NS;
            case RUN -> future != null ? issuedAtNs + hangBoundNs() : Long.MAX_VALUE;
            case CLOSE_COMM, CLOSE_TRANSPORT -> phaseStartNs + closeBoundNs();
            default -> Long.MAX_VALUE;
        };
        if (stepped != null && (phase == Phase.RUN || phase == Phase.CLOSE_COMM)) {
            next = Math.min(next, stepped.nextDeadlineNs());
        }
        if (phase == Phase.RUN || phase == Phase.CLOSE_COMM || phase == Phase.CLOSE_TRANSPORT) {
            next = Math.min(next, transport.channelDeadlineNs());   // a send's RTS timer
        }
        return next;
    }

    private long hangBoundNs() {
        return settings.opTimeoutNs() + settings.peerTimeoutNs() + HANG_SLACK_NS;
    }

    private long closeBoundNs() {
        // The goodbye linger (2 s), the transport's close linger (JCCL_CLOSE_LINGER_MS) and slack.
        return 2_000_000_000L + CollectivesSimulation.CLOSE_LINGER_NS + HANG_SLACK_NS;
    }

    @Override
    public int step(long nowNs) {
        try {
            return switch (phase) {
                case CONNECT -> connect(nowNs);
                case RUN -> run(nowNs);
                case CLOSE_COMM -> closeCommunicator(nowNs);
                case CLOSE_TRANSPORT -> closeTransport(nowNs);
                case DONE, CRASHED, HUNG -> 0;
            };
        } catch (NetException | JcclException | IllegalStateException | IllegalArgumentException e) {
            hang = "rank " + rank + " in " + phase + ": unexpected " + e;
            phase = Phase.HUNG;
            return 1;
        }
    }

    // ---- Connecting, as communicator creation does: a data and a control connection each way per peer ----

    private int connect(long nowNs) {
        if (phaseStartNs == 0) {
            phaseStartNs = nowNs | 1;
        }
        if (nowNs - phaseStartNs > settings.opTimeoutNs() + HANG_SLACK_NS) {
            hang = "rank " + rank + " could not connect to every peer in " + (nowNs - phaseStartNs) / 1_000_000
                    + " ms";
            phase = Phase.HUNG;
            return 1;
        }
        int work = 0;
        for (int i = 0; i < 2 * size; i++) {
            int peer = i / 2;
            if (peer == rank || sends[i] != null) {
                continue;
            }
            if (pending[i] == null) {
                pending[i] = transport.connect(handles[peer], null);
                work++;
            }
            SendConnection c = pending[i].poll();
            if (c != null) {
                sends[i] = c;
                long at = (long) i * HELLO_BYTES;
                helloOut.set(ValueLayout.JAVA_INT_UNALIGNED, at, HELLO_MAGIC);
                helloOut.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, rank);
                helloOut.set(ValueLayout.JAVA_INT_UNALIGNED, at + 8, i % 2);
                helloSends[i] = c.isend(helloOut, at, HELLO_BYTES, HELLO_TAG, null);
                work++;
            }
        }
        RecvConnection c;
        while (acceptedCount < 2 * (size - 1) && (c = listener.accept()) != null) {
            accepted[acceptedCount] = c;
            helloRecvs[acceptedCount] = c.irecv(helloIn, (long) acceptedCount * HELLO_BYTES, HELLO_BYTES, HELLO_TAG,
                    null);
            acceptedCount++;
            work++;
        }
        for (int i = 0; i < acceptedCount; i++) {
            if (helloRecvs[i] != null && helloRecvs[i].test() != NetRequest.NOT_DONE) {
                helloRecvs[i] = null;
                long at = (long) i * HELLO_BYTES;
                int peer = helloIn.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4);
                int kind = helloIn.get(ValueLayout.JAVA_INT_UNALIGNED, at + 8);
                if (helloIn.get(ValueLayout.JAVA_INT_UNALIGNED, at) != HELLO_MAGIC || peer < 0 || peer >= size
                        || peer == rank || kind < DATA || kind > CONTROL || recvs[2 * peer + kind] != null) {
                    throw new IllegalStateException("rank " + rank + " got a malformed hello");
                }
                recvs[2 * peer + kind] = accepted[i];
                identified++;
                work++;
            }
        }
        boolean allSent = true;
        for (int i = 0; i < 2 * size; i++) {
            if (i / 2 != rank) {
                if (helloSends[i] != null && helloSends[i].test() != NetRequest.NOT_DONE) {
                    helloSends[i] = null;
                    work++;
                }
                allSent &= sends[i] != null && helloSends[i] == null;
            }
        }
        if (allSent && identified == 2 * (size - 1)) {
            listener.close();
            SendConnection[] dataSend = new SendConnection[size];
            RecvConnection[] dataRecv = new RecvConnection[size];
            SendConnection[] controlSend = new SendConnection[size];
            RecvConnection[] controlRecv = new RecvConnection[size];
            for (int p = 0; p < size; p++) {
                if (p != rank) {
                    dataSend[p] = sends[2 * p + DATA];
                    dataRecv[p] = recvs[2 * p + DATA];
                    controlSend[p] = sends[2 * p + CONTROL];
                    controlRecv[p] = recvs[2 * p + CONTROL];
                }
            }
            CommConfig config = CommConfig.builder().opTimeout(Duration.ofNanos(settings.opTimeoutNs()))
                    .peerTimeout(Duration.ofNanos(settings.peerTimeoutNs())).build();
            stepped = SteppedCommunicator.create(rank, size, config, cluster.clock(), new SteppedCommunicator.Links(
                    dataSend, dataRecv, controlSend, controlRecv, transport.properties()), "sim");
            phase = Phase.RUN;
            work++;
        }
        return work;
    }

    // ---- The workload ----

    private int run(long nowNs) {
        int work = 0;
        for (int i = 0; i < STEPS_PER_INTERACTION; i++) {
            int w = stepped.doWork() + advance(nowNs);
            if (w == 0 || phase != Phase.RUN) {
                break;
            }
            work += w;
        }
        if (phase == Phase.RUN && future != null && nowNs - issuedAtNs > hangBoundNs()) {
            hang = "rank " + rank + ": " + ops.get(opIndex).describe() + " neither completed nor failed within "
                    + hangBoundNs() / 1_000_000 + " ms of virtual time";
            phase = Phase.HUNG;
            work++;
        }
        return work;
    }

    /** Issues the next operation, or takes the result of the current one. @return work done */
    private int advance(long nowNs) {
        if (future == null) {
            if (opIndex == ops.size()) {
                startClosing(nowNs);
                return 1;
            }
            if (opIndex == crashAtOp) {
                crash(nowNs);
                return 1;
            }
            WorkloadOp op = ops.get(opIndex);
            try {
                future = workload.issue(stepped.communicator(), op);
            } catch (JcclException e) {
                failed(op, e, nowNs);
                return 1;
            }
            issuedAtNs = nowNs;
            return 1;
        }
        if (!future.isDone()) {
            return 0;
        }
        WorkloadOp op = ops.get(opIndex);
        Optional<JcclException> e = future.error();
        future = null;
        if (e.isPresent()) {
            failed(op, e.get(), nowNs);
            return 1;
        }
        if (rank == 0 && !spoiled && settings.spoilAtOp() >= 0 && opIndex >= settings.spoilAtOp()
                && workload.output() != null && workload.output().byteSize() > 0) {
            MemorySegment out = workload.output();   // the first operation from there with an output on rank 0
            out.set(ValueLayout.JAVA_BYTE, 0, (byte) ~out.get(ValueLayout.JAVA_BYTE, 0));
            spoiled = true;
        }
        long bad = workload.check(op);
        if (bad > 0) {
            wrong += bad;
            if (problem == null) {
                problem = "rank " + rank + ": " + workload.lastProblem();
            }
        }
        completedOps++;
        opIndex++;
        return 1;
    }

    private void failed(WorkloadOp op, JcclException e, long nowNs) {
        error = e;
        errorOp = op.describe();
        errorAtNs = nowNs;
        startClosing(nowNs);
    }

    private void crash(long nowNs) {
        phase = Phase.CRASHED;
        shared.crashedAtNs = nowNs;
        stepped.crash();
        cluster.crash(rank);
    }

    // ---- Closing ----

    private void startClosing(long nowNs) {
        phase = Phase.CLOSE_COMM;
        phaseStartNs = nowNs;
        if (!closeRequested) {
            closeRequested = true;
            stepped.communicator().close();
        }
    }

    private int closeCommunicator(long nowNs) {
        int work = 0;
        for (int i = 0; i < STEPS_PER_INTERACTION && !stepped.isTerminated(); i++) {
            int w = stepped.doWork();
            if (w == 0) {
                break;
            }
            work += w;
        }
        if (stepped.isTerminated()) {
            transport.beginClose();
            phase = Phase.CLOSE_TRANSPORT;
            return work + 1 + closeTransport(nowNs);
        }
        return work + checkCloseBound(nowNs, "closing its communicator");
    }

    private int closeTransport(long nowNs) {
        if (transport.pollClose()) {
            phase = Phase.DONE;
            return 1;
        }
        return checkCloseBound(nowNs, "closing its transport");
    }

    private int checkCloseBound(long nowNs, String what) {
        if (nowNs - phaseStartNs > closeBoundNs()) {
            hang = "rank " + rank + " was still " + what + " after " + (nowNs - phaseStartNs) / 1_000_000
                    + " ms of virtual time";
            phase = Phase.HUNG;
            return 1;
        }
        return 0;
    }

    /** @return whether an error is a clear report of a dead peer: a remote error or a timeout */
    static boolean clearAboutAPeer(JcclException e) {
        return e.code() == ErrorCode.REMOTE_ERROR || e.code() == ErrorCode.TIMEOUT;
    }
}
