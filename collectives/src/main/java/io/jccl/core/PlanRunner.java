package io.jccl.core;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.RecvConnection;
import io.jccl.plan.Buf;
import io.jccl.plan.Fingerprint;
import io.jccl.plan.Plan;
import io.jccl.plan.Step;
import io.jccl.reduce.Reducer;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Runs a {@link Plan} over the peer connections without blocking: {@link #progress()} advances every lane as
 * far as it can and returns whether anything happened; the executor calls it until {@link #done()}.
 *
 * <p>A step goes through up to three phases: START (acquire staging, post receives), WAIT (until the
 * receives are in; then reduce or copy) and SENDS (post the sends, which the {@link SendTracker} then follows,
 * so the lane moves on at once). Nothing here allocates in steady state: lane state lives in arrays reused
 * from one run to the next.
 */
final class PlanRunner implements OpRun {
    private final String[] peerNames;
    private static final int START = 0;
    private static final int WAIT = 1;
    private static final int SENDS = 2;
    private static final MemorySegment EMPTY = MemorySegment.NULL;

    private final int rank;
    private final PeerLinks links;
    private final StagingPool staging;
    private final SendTracker sends = new SendTracker();

    // Bindings of the current run.
    private Plan plan;
    private MemorySegment[] sendBuffers;
    private MemorySegment[] recvBuffers;
    private long[] tags;
    private int[] elementBytes;
    private Reducer[] reducers;
    private OpRequest[] members;

    // Lane state.
    private int lanes;
    private int[] stepIndex = new int[4];
    private int[] phase = new int[4];
    private int[] slot0 = new int[4];
    private int[] slot1 = new int[4];
    private NetRequest[] recv0 = new NetRequest[4];
    private NetRequest[] recv1 = new NetRequest[4];
    private NetRequest[] exchange = new NetRequest[4];
    private boolean[] recv0Done = new boolean[4];
    private boolean[] recv1Done = new boolean[4];
    private boolean[] exchangeDone = new boolean[4];
    /** An exchange whose operand was prepared into its result buffer (sent from there, combined in place). */
    private boolean[] exchangePrepared = new boolean[4];
    private int[] sendsPosted = new int[4];
    private MemorySegment[] sourceBuffer = new MemorySegment[4];
    private long[] sourceOffset = new long[4];
    private int[] sourceSlot = new int[4];
    /** Each lane's reduction done where the transport holds the received data, and whether the step uses it. */
    private CombineSink[] sinks = newSinks(4);
    private boolean[] sunk = new boolean[4];
    /** An out-of-place exchange that received straight into its result, combined there with the input afterwards. */
    private boolean[] receivedInResult = new boolean[4];
    /**
     * Pipelined rendezvous ({@link RecvConnection#receivesAhead()}): each lane's receive posted for a later step while
     * the current one runs — the step's index (-1: none), its request, and its sink where it combines in one.
     */
    private int[] aheadStep = new int[4];
    private NetRequest[] aheadRecv = new NetRequest[4];
    private CombineSink[] aheadSinks = newSinks(4);
    private boolean[] aheadSunk = new boolean[4];
    /** Receives posted ahead since this runner was made (tests, diagnostics). */
    private long postedAhead;
    /** At most this many send-only steps lie between a lane's current step and the one it receives ahead for. */
    private static final int AHEAD_SKIPS_SENDS = 2;

    /** @return e.g. {@code rank 2 (pid 4711 on node3)}, for messages about a peer that went away */
    private String name(int peer) {
        return peerNames != null && peer >= 0 && peer < peerNames.length && peerNames[peer] != null
                ? peerNames[peer] : "rank " + peer;
    }

    /** Sends of operations marked {@link OpRequest#singleCopySends} go by {@code isendSingleCopy}. */
    PlanRunner(int rank, PeerLinks links, StagingPool staging, String[] peerNames) {
        this.peerNames = peerNames;
        this.rank = rank;
        this.links = links;
        this.staging = staging;
    }

    /** Binds a plan to the operation's buffers; member arrays are indexed by {@link Step#member()}. */
    void start(Plan plan, MemorySegment[] sendBuffers, MemorySegment[] recvBuffers, long[] tags, int[] elementBytes,
               Reducer[] reducers, OpRequest[] members) {
        this.plan = plan;
        this.sendBuffers = sendBuffers;
        this.recvBuffers = recvBuffers;
        this.tags = tags;
        this.elementBytes = elementBytes;
        this.reducers = reducers;
        this.members = members;
        this.lanes = plan.lanes().size();
        if (stepIndex.length < lanes) {
            grow(Math.max(lanes, stepIndex.length * 2));
        }
        for (int i = 0; i < lanes; i++) {
            stepIndex[i] = 0;
            phase[i] = START;
            slot0[i] = -1;
            slot1[i] = -1;
            sourceSlot[i] = -1;
            resetRequests(i);
            dropAhead(i);
        }
    }

    private void grow(int n) {
        stepIndex = new int[n];
        phase = new int[n];
        slot0 = new int[n];
        slot1 = new int[n];
        recv0 = new NetRequest[n];
        recv1 = new NetRequest[n];
        exchange = new NetRequest[n];
        recv0Done = new boolean[n];
        recv1Done = new boolean[n];
        exchangeDone = new boolean[n];
        exchangePrepared = new boolean[n];
        sendsPosted = new int[n];
        sourceBuffer = new MemorySegment[n];
        sourceOffset = new long[n];
        sourceSlot = new int[n];
        sinks = newSinks(n);
        sunk = new boolean[n];
        receivedInResult = new boolean[n];
        aheadStep = new int[n];
        aheadRecv = new NetRequest[n];
        aheadSinks = newSinks(n);
        aheadSunk = new boolean[n];
    }

    private static CombineSink[] newSinks(int n) {
        CombineSink[] made = new CombineSink[n];
        for (int i = 0; i < n; i++) {
            made[i] = new CombineSink();
        }
        return made;
    }

    private void resetRequests(int lane) {
        recv0[lane] = null;
        recv1[lane] = null;
        exchange[lane] = null;
        recv0Done[lane] = false;
        recv1Done[lane] = false;
        exchangeDone[lane] = false;
        exchangePrepared[lane] = false;
        sendsPosted[lane] = 0;
        sourceBuffer[lane] = null;
        if (sunk[lane]) {
            sinks[lane].clear();
            sunk[lane] = false;
        }
        receivedInResult[lane] = false;
    }

    private void dropAhead(int lane) {
        if (aheadSunk[lane]) {
            aheadSinks[lane].clear();
            aheadSunk[lane] = false;
        }
        aheadStep[lane] = -1;
        aheadRecv[lane] = null;
    }

    /** @return true when every lane finished and every send completed */
    @Override
    public boolean done() {
        for (int i = 0; i < lanes; i++) {
            if (stepIndex[i] < plan.lanes().get(i).size()) {
                return false;
            }
        }
        return sends.isEmpty();
    }

    /**
     * Advances what can advance.
     *
     * @return true when something progressed
     * @throws JcclException when a step failed (mismatch, peer gone, transport error)
     */
    @Override
    public boolean progress() {
        boolean progressed = false;
        for (int lane = 0; lane < lanes; lane++) {
            List<Step> steps = plan.lanes().get(lane);
            while (stepIndex[lane] < steps.size()) {
                Step step = steps.get(stepIndex[lane]);
                if (!advance(lane, step)) {
                    progressed |= receiveAhead(lane, steps);
                    break;
                }
                progressed = true;
            }
        }
        try {
            progressed |= sends.poll(staging);
        } catch (NetException e) {
            throw failure(e, sends.failedPeer(), -1, true);
        }
        return progressed;
    }

    /**
     * The segment a step refers to. The API accepts null where a rank has nothing to read or write (count 0,
     * non-roots); transports get {@link MemorySegment#NULL} for those, since not every transport takes null
     * even for zero bytes (TCP requires a buffer).
     */
    private MemorySegment buffer(Buf buf, int member) {
        MemorySegment s = switch (buf) {
            case SEND -> sendBuffers[member];
            case RECV -> recvBuffers[member];
            case NONE -> EMPTY;
        };
        return s == null ? EMPTY : s;
    }

    /** @return true when the step finished (the lane may continue with the next one) or changed phase */
    private boolean advance(int lane, Step step) {
        int member = step.member();
        long bytes = step.count() * elementBytes[member];
        switch (phase[lane]) {
            case START -> {
                return begin(lane, step, member, bytes);
            }
            case WAIT -> {
                return await(lane, step, member, bytes);
            }
            default -> {
                return postSends(lane, step, member, bytes);
            }
        }
    }

    private boolean begin(int lane, Step step, int member, long bytes) {
        if (aheadStep[lane] == stepIndex[lane]) {
            // Its receive was posted while an earlier step ran: it only has to complete now.
            recv0[lane] = aheadRecv[lane];
            if (aheadSunk[lane]) {
                CombineSink bound = aheadSinks[lane];
                aheadSinks[lane] = sinks[lane];
                sinks[lane] = bound;
                sunk[lane] = true;
                aheadSunk[lane] = false;
            }
            aheadStep[lane] = -1;
            aheadRecv[lane] = null;
            phase[lane] = WAIT;
            return true;
        }
        switch (step.kind()) {
            case SEND -> {
                MemorySegment src = buffer(step.src(), member);
                if (step.prepare() && reducers[member] != null && reducers[member].needsPrepare()) {
                    int s = staging.acquire();
                    if (s < 0) {
                        return false;
                    }
                    reducers[member].prepare(src, step.srcOffset(), staging.segment(s), 0, step.count());
                    setSource(lane, staging.segment(s), 0, s);
                } else {
                    setSource(lane, src, step.srcOffset(), -1);
                }
                phase[lane] = SENDS;
                return true;
            }
            case RECV_COPY_SEND -> {
                MemorySegment dst = buffer(step.dst(), member);
                if (sends.reads(dst, step.dstOffset(), bytes)) {
                    return false;
                }
                NetRequest r = irecv(step.recvPeer0(), dst, step.dstOffset(), bytes, member);
                if (r == null) {
                    return false;
                }
                recv0[lane] = r;
                phase[lane] = WAIT;
                return true;
            }
            case RECV_REDUCE_SEND -> {
                boolean stored = step.dst() != Buf.NONE;
                if (stored && sends.reads(buffer(step.dst(), member), step.dstOffset(), bytes)) {
                    return false;
                }
                // One received operand and a local one: the transport's sink combines them into the result (the
                // step's destination, or staging when it keeps the result there), with no copy into staging first.
                boolean sink = step.recvPeer1() < 0 && step.src() != Buf.NONE
                        && sinkReaches(step.recvPeer0(), buffer(step.src(), member),
                                stored ? buffer(step.dst(), member) : null);
                // Without a sink, out of place, the received operand lands in the result and the local one, the
                // input, is combined into it there: two buffers touched, not three (staging). Out of place the
                // input and the result are disjoint, so the input stays as it was while the receive writes.
                boolean intoResult = !sink && step.recvPeer1() < 0 && readsInputIntoResult(step, member);
                if ((!sink || !stored) && !intoResult && slot0[lane] < 0 && (slot0[lane] = staging.acquire()) < 0) {
                    return false;
                }
                if (step.recvPeer1() >= 0 && slot1[lane] < 0 && (slot1[lane] = staging.acquire()) < 0) {
                    return false;
                }
                if (recv0[lane] == null) {
                    NetRequest r;
                    if (sink) {
                        sinks[lane].bind(reducers[member], buffer(step.src(), member), step.srcOffset(),
                                stored ? buffer(step.dst(), member) : staging.segment(slot0[lane]),
                                stored ? step.dstOffset() : 0, elementBytes[member], true, step.prepare(),
                                step.finish());
                        r = irecv(step.recvPeer0(), sinks[lane], bytes, member);
                    } else if (intoResult) {
                        r = irecv(step.recvPeer0(), buffer(step.dst(), member), step.dstOffset(), bytes, member);
                        receivedInResult[lane] = r != null;
                    } else {
                        r = irecv(step.recvPeer0(), staging.segment(slot0[lane]), 0, bytes, member);
                    }
                    if (r == null) {
                        return false;
                    }
                    recv0[lane] = r;
                    sunk[lane] = sink;
                }
                if (step.recvPeer1() >= 0) {
                    NetRequest r = irecv(step.recvPeer1(), staging.segment(slot1[lane]), 0, bytes, member);
                    if (r == null) {
                        return false;
                    }
                    recv1[lane] = r;
                }
                phase[lane] = WAIT;
                return true;
            }
            case COPY -> {
                MemorySegment dst = buffer(step.dst(), member);
                if (sends.reads(dst, step.dstOffset(), bytes)) {
                    return false;
                }
                copy(step, member, bytes, dst);
                finishStep(lane);
                return true;
            }
            case EXCHANGE_REDUCE -> {
                MemorySegment acc = buffer(step.dst(), member);
                // The send first: posting a receive may already take the partner's whole message (the shm
                // transport reads a cross-memory descriptor as soon as it sees one), and a partner that waits for
                // this rank's data meanwhile would serialize the exchange into two copies in a row.
                if (exchange[lane] == null) {
                    MemorySegment out = acc;
                    long outOffset = step.dstOffset();
                    if (step.src() != Buf.NONE && !exchangePrepared[lane]) {
                        if (step.prepare() && reducers[member].needsPrepare()) {
                            // The contribution this rank sends is its prepared input: made once, where the result goes.
                            reducers[member].prepare(buffer(step.src(), member), step.srcOffset(), acc,
                                    step.dstOffset(), step.count());
                            exchangePrepared[lane] = true;
                        } else {
                            out = buffer(step.src(), member);   // sent straight from the input: no copy first
                            outOffset = step.srcOffset();
                        }
                    }
                    NetRequest s = isend(step.sendPeer0(), out, outOffset, bytes, member);
                    if (s == null) {
                        return false;
                    }
                    exchange[lane] = s;
                }
                if (recv0[lane] == null) {
                    NetRequest r;
                    boolean sink = exchangeSinks(step, member);
                    if (sink) {
                        // acc = input ⊕ received, combined where the transport holds the received data.
                        sinks[lane].bind(reducers[member], buffer(step.src(), member), step.srcOffset(), acc,
                                step.dstOffset(), elementBytes[member], false, false, false);
                        r = irecv(step.recvPeer0(), sinks[lane], bytes, member);
                    } else if (exchangeReceivesInResult(step, member, acc, bytes)) {
                        // Out of place, the result is not what is sent: the peer's data lands there and is combined
                        // with the input in place, touching two buffers as in place does, not three (staging).
                        r = irecv(step.recvPeer0(), acc, step.dstOffset(), bytes, member);
                        receivedInResult[lane] = r != null;
                    } else {
                        if (slot0[lane] < 0 && (slot0[lane] = staging.acquire()) < 0) {
                            return false;
                        }
                        r = irecv(step.recvPeer0(), staging.segment(slot0[lane]), 0, bytes, member);
                    }
                    if (r == null) {
                        return false;
                    }
                    recv0[lane] = r;
                    sunk[lane] = sink;
                }
                phase[lane] = WAIT;
                return true;
            }
            default -> throw new IllegalStateException("unknown step " + step.kind());
        }
    }

    /**
     * The pipelined rendezvous: while a lane waits in a step whose receives are posted (or that receives nothing),
     * posts the receive of its next receiving step where the connection asks for that
     * ({@link RecvConnection#receivesAhead()}), so that the peer's send of that step finds its way open. Only a step
     * that receives from one peer straight into its destination (a copy, or a sink combining it with a local operand
     * there), past at most {@link #AHEAD_SKIPS_SENDS} send-only steps, and only where nothing before it still reads or
     * writes the memory it writes or reads: the current step's operands, the skipped sends' sources, sends in flight.
     * Receives stay posted in the lane's order, so the n-th receive on a connection still matches the n-th send.
     *
     * @return whether a receive was posted
     */
    private boolean receiveAhead(int lane, List<Step> steps) {
        int k = stepIndex[lane];
        Step current = steps.get(k);
        boolean currentPosted = current.kind() == Step.Kind.SEND
                || (current.kind() != Step.Kind.COPY && phase[lane] != START);
        if (aheadStep[lane] >= 0 || !currentPosted) {
            return false;
        }
        int j = k + 1;
        while (j < steps.size() && steps.get(j).kind() == Step.Kind.SEND && j - k <= AHEAD_SKIPS_SENDS) {
            j++;
        }
        if (j >= steps.size()) {
            return false;
        }
        Step next = steps.get(j);
        int member = next.member();
        int peer = next.recvPeer0();
        boolean copies = next.kind() == Step.Kind.RECV_COPY_SEND;
        boolean combines = next.kind() == Step.Kind.RECV_REDUCE_SEND && next.recvPeer1() < 0
                && next.src() != Buf.NONE && next.dst() != Buf.NONE;
        if (!(copies || combines) || peer < 0 || !links.dataRecv[peer].receivesAhead()) {
            return false;
        }
        long bytes = next.count() * elementBytes[member];
        MemorySegment dst = buffer(next.dst(), member);
        MemorySegment src = combines ? buffer(next.src(), member) : null;
        if (combines && !sinkReaches(peer, src, dst)) {
            return false;
        }
        if (touches(current, dst, next.dstOffset(), bytes) || sends.reads(dst, next.dstOffset(), bytes)
                || combines && writes(current, src, next.srcOffset(), bytes)) {
            return false;
        }
        for (int i = k + 1; i < j; i++) {
            if (touches(steps.get(i), dst, next.dstOffset(), bytes)) {
                return false;
            }
        }
        NetRequest r;
        if (combines) {
            aheadSinks[lane].bind(reducers[member], src, next.srcOffset(), dst, next.dstOffset(),
                    elementBytes[member], true, next.prepare(), next.finish());
            r = irecv(peer, aheadSinks[lane], bytes, member);
            if (r == null) {
                aheadSinks[lane].clear();
                return false;
            }
        } else {
            r = irecv(peer, dst, next.dstOffset(), bytes, member);
            if (r == null) {
                return false;
            }
        }
        aheadStep[lane] = j;
        aheadRecv[lane] = r;
        aheadSunk[lane] = combines;
        postedAhead++;
        return true;
    }

    /** @return how many receives this runner posted ahead of their step (the pipelined rendezvous) */
    long receivesPostedAhead() {
        return postedAhead;
    }

    /** @return whether {@code step} reads or writes any of the range (its operand or its destination) */
    private boolean touches(Step step, MemorySegment buffer, long offset, long bytes) {
        int member = step.member();
        long stepBytes = step.count() * elementBytes[member];
        return step.src() != Buf.NONE
                && ArgChecks.overlaps(buffer(step.src(), member), step.srcOffset(), stepBytes, buffer, offset, bytes)
                || writes(step, buffer, offset, bytes);
    }

    /** @return whether {@code step} writes any of the range (its destination) */
    private boolean writes(Step step, MemorySegment buffer, long offset, long bytes) {
        int member = step.member();
        return step.dst() != Buf.NONE && ArgChecks.overlaps(buffer(step.dst(), member), step.dstOffset(),
                step.count() * elementBytes[member], buffer, offset, bytes);
    }

    /**
     * An exchange may combine in the transport's sink when it reads its operand from an input that is not where the
     * result goes: the data it sends (the input) is then never written while the peer may still read it, and the
     * result is written only by the sink. In place, or with a prepared operand, the result buffer is also what is
     * sent, so it must not change before the send completes: those go through staging.
     */
    private boolean exchangeSinks(Step step, int member) {
        return step.src() != Buf.NONE && step.src() != step.dst() && !members[member].inPlace
                && !(step.prepare() && reducers[member].needsPrepare())
                && sinkReaches(step.recvPeer0(), buffer(step.src(), member), buffer(step.dst(), member));
    }

    /**
     * Whether the connection from {@code peer} takes a sink that reads {@code local} and writes {@code out} (null:
     * staging, which every thread reaches): the transport may run the sink on a thread of its own.
     */
    private boolean sinkReaches(int peer, MemorySegment local, MemorySegment out) {
        RecvConnection c = links.dataRecv[peer];
        return c.acceptsSinks() && c.sinkReaches(local) && (out == null || c.sinkReaches(out));
    }

    /**
     * Without a sink, an out-of-place exchange receives straight into its result when the result is neither what it
     * sends (the input is, {@link #readsInputIntoResult}) nor read by a send still in flight; the combine
     * then reads the input and the received data in the result and writes the result (the same operands in the same
     * order as through staging, so the same bits). With a prepared operand the result is what is sent: those go
     * through staging.
     */
    private boolean exchangeReceivesInResult(Step step, int member, MemorySegment acc, long bytes) {
        return readsInputIntoResult(step, member) && !(step.prepare() && reducers[member].needsPrepare())
                && !sends.reads(acc, step.dstOffset(), bytes);
    }

    /**
     * Whether a step combines the operation's input into its result out of place: the two are then disjoint, so a
     * receive may write the result without touching the operand. (A step that reads a partial result out of RECV
     * into RECV does not qualify: the receive would overwrite its operand.)
     */
    private boolean readsInputIntoResult(Step step, int member) {
        return step.src() == Buf.SEND && step.dst() == Buf.RECV && !members[member].inPlace;
    }

    private void copy(Step step, int member, long bytes, MemorySegment dst) {
        MemorySegment src = buffer(step.src(), member);
        Reducer reducer = reducers[member];
        boolean prepare = step.prepare() && reducer != null && reducer.needsPrepare();
        boolean finish = step.finish() && reducer != null && reducer.needsFinish();
        if (prepare && finish) {
            reducer.prepare(src, step.srcOffset(), dst, step.dstOffset(), step.count());
            reducer.finish(dst, step.dstOffset(), dst, step.dstOffset(), step.count());
        } else if (prepare) {
            reducer.prepare(src, step.srcOffset(), dst, step.dstOffset(), step.count());
        } else if (finish) {
            reducer.finish(src, step.srcOffset(), dst, step.dstOffset(), step.count());
        } else if (bytes > 0 && !(src == dst && step.srcOffset() == step.dstOffset())) {
            MemorySegment.copy(src, step.srcOffset(), dst, step.dstOffset(), bytes);
        }
    }

    private boolean await(int lane, Step step, int member, long bytes) {
        // An exchange's send is tested before and independently of its receive: a transport may move a send's
        // data only when the send is tested (shm stops at a full window or a term rotation), and the partner
        // waits for that data before it tests its own send, so testing the receive first deadlocks both.
        if (step.kind() == Step.Kind.EXCHANGE_REDUCE && !exchangeDone[lane]) {
            try {
                exchangeDone[lane] = exchange[lane].test() != NetRequest.NOT_DONE;
            } catch (NetException e) {
                throw failure(e, step.sendPeer0(), member, true);
            }
        }
        if (!recv0Done[lane]) {
            if (!testRecv(recv0[lane], step.recvPeer0(), bytes, member)) {
                return false;
            }
            recv0Done[lane] = true;
        }
        if (step.recvPeer1() >= 0 && step.kind() == Step.Kind.RECV_REDUCE_SEND && !recv1Done[lane]) {
            if (!testRecv(recv1[lane], step.recvPeer1(), bytes, member)) {
                return false;
            }
            recv1Done[lane] = true;
        }
        if (step.kind() == Step.Kind.EXCHANGE_REDUCE && !exchangeDone[lane]) {
            return false;
        }
        switch (step.kind()) {
            case RECV_COPY_SEND -> setSource(lane, buffer(step.dst(), member), step.dstOffset(), -1);
            case RECV_REDUCE_SEND -> reduce(lane, step, member);
            case EXCHANGE_REDUCE -> {
                if (sunk[lane]) {
                    finishStep(lane);   // the sink has combined every piece
                    return true;
                }
                MemorySegment acc = buffer(step.dst(), member);
                // The received operand: already in the result (received there out of place), or in staging.
                boolean inResult = receivedInResult[lane];
                MemorySegment received = inResult ? acc : staging.segment(slot0[lane]);
                long receivedOffset = inResult ? step.dstOffset() : 0;
                if (step.src() != Buf.NONE && !exchangePrepared[lane]) {
                    // acc = input ⊕ received: the input read once, the result written once.
                    reducers[member].combine(buffer(step.src(), member), step.srcOffset(), received, receivedOffset,
                            acc, step.dstOffset(), step.count(), false);
                } else {
                    reducers[member].combine(acc, step.dstOffset(), received, receivedOffset, acc, step.dstOffset(),
                            step.count(), false);
                }
                exchangePrepared[lane] = false;
                if (inResult) {
                    receivedInResult[lane] = false;
                } else {
                    staging.release(slot0[lane]);
                    slot0[lane] = -1;
                }
                finishStep(lane);
                return true;
            }
            default -> throw new IllegalStateException("step " + step.kind() + " does not wait");
        }
        phase[lane] = SENDS;
        return true;
    }

    private void reduce(int lane, Step step, int member) {
        if (sunk[lane]) {   // the sink has combined every piece into the step's destination or the staging slot
            if (step.dst() != Buf.NONE) {
                setSource(lane, buffer(step.dst(), member), step.dstOffset(), -1);
            } else {
                setSource(lane, staging.segment(slot0[lane]), 0, slot0[lane]);
            }
            slot0[lane] = -1;
            return;
        }
        if (receivedInResult[lane]) {   // the received operand is in the result: combine the local one there
            MemorySegment out = buffer(step.dst(), member);
            combineWithLocal(reducers[member], step, out, step.dstOffset(), buffer(step.src(), member), out,
                    step.dstOffset(), step.finish());
            receivedInResult[lane] = false;
            setSource(lane, out, step.dstOffset(), -1);
            return;
        }
        Reducer reducer = reducers[member];
        MemorySegment stage0 = staging.segment(slot0[lane]);
        MemorySegment local = buffer(step.src(), member);
        boolean hasLocal = step.src() != Buf.NONE;
        boolean two = step.recvPeer1() >= 0;
        MemorySegment out;
        long outOffset;
        if (step.dst() != Buf.NONE) {
            out = buffer(step.dst(), member);
            outOffset = step.dstOffset();
        } else {
            out = stage0;
            outOffset = 0;
        }
        long n = step.count();
        if (two) {
            MemorySegment stage1 = staging.segment(slot1[lane]);
            if (hasLocal) {
                combineWithLocal(reducer, step, stage0, 0, local, stage0, 0, false);
            }
            reducer.combine(stage0, 0, stage1, 0, out, outOffset, n, step.finish());
            staging.release(slot1[lane]);
            slot1[lane] = -1;
        } else if (hasLocal) {
            combineWithLocal(reducer, step, stage0, 0, local, out, outOffset, step.finish());
        } else if (step.finish()) {
            reducer.finish(stage0, 0, out, outOffset, n);
        } else if (out != stage0) {
            MemorySegment.copy(stage0, 0, out, outOffset, n * elementBytes[member]);
        }
        if (out == stage0) {
            setSource(lane, stage0, 0, slot0[lane]);   // the step's reference moves to the source
        } else {
            staging.release(slot0[lane]);
            setSource(lane, out, outOffset, -1);
        }
        slot0[lane] = -1;
    }

    private static void combineWithLocal(Reducer reducer, Step step, MemorySegment partial, long partialOffset,
                                         MemorySegment local, MemorySegment out, long outOffset, boolean finish) {
        if (step.prepare()) {
            reducer.combineLocal(partial, partialOffset, local, step.srcOffset(), out, outOffset, step.count(),
                    finish);
        } else {
            reducer.combine(partial, partialOffset, local, step.srcOffset(), out, outOffset, step.count(), finish);
        }
    }

    private void setSource(int lane, MemorySegment buffer, long offset, int slot) {
        sourceBuffer[lane] = buffer;
        sourceOffset[lane] = offset;
        sourceSlot[lane] = slot;
    }

    private boolean postSends(int lane, Step step, int member, long bytes) {
        while (sendsPosted[lane] < step.sendPeerCount()) {
            int peer = sendsPosted[lane] == 0 ? step.sendPeer0() : step.sendPeer1();
            NetRequest r = isend(peer, sourceBuffer[lane], sourceOffset[lane], bytes, member);
            if (r == null) {
                return false;
            }
            int s = sourceSlot[lane];
            if (s >= 0) {
                staging.retain(s);
            }
            sends.add(r, s, peer, sourceBuffer[lane], sourceOffset[lane], bytes);
            sendsPosted[lane]++;
        }
        if (sourceSlot[lane] >= 0) {
            staging.release(sourceSlot[lane]);
        }
        finishStep(lane);
        return true;
    }

    private void finishStep(int lane) {
        resetRequests(lane);
        sourceSlot[lane] = -1;
        phase[lane] = START;
        stepIndex[lane]++;
    }

    private NetRequest irecv(int peer, MemorySegment buffer, long offset, long bytes, int member) {
        try {
            return links.dataRecv[peer].irecv(buffer, offset, bytes, tags[member], null);
        } catch (NetException e) {
            throw failure(e, peer, member, false);
        }
    }

    private NetRequest irecv(int peer, CombineSink sink, long bytes, int member) {
        try {
            return links.dataRecv[peer].irecv(sink, bytes, tags[member]);
        } catch (NetException e) {
            throw failure(e, peer, member, false);
        }
    }

    private NetRequest isend(int peer, MemorySegment buffer, long offset, long bytes, int member) {
        try {
            OpRequest op = members[member];
            if (op != null && op.singleCopySends) {
                return links.dataSend[peer].isendSingleCopy(buffer, offset, bytes, tags[member], null);
            }
            return links.dataSend[peer].isend(buffer, offset, bytes, tags[member], null);
        } catch (NetException e) {
            throw failure(e, peer, member, true);
        }
    }

    private boolean testRecv(NetRequest request, int peer, long expectedBytes, int member) {
        long got;
        try {
            got = request.test();
        } catch (NetException e) {
            throw failure(e, peer, member, false);
        }
        if (got == NetRequest.NOT_DONE) {
            return false;
        }
        if (got != expectedBytes) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "operations do not match across ranks: rank " + peer
                    + " sent " + got + " bytes where rank " + rank + " expected " + expectedBytes + " in "
                    + members[member].describe() + " (different counts?)");
        }
        return true;
    }

    /**
     * The error of ranks whose calls differ, as every algorithm reports it (plans on a tag mismatch, the direct read
     * on the calls its peers published).
     *
     * @param peer   the other rank
     * @param theirs its call's fingerprint tag
     * @param rank   this rank
     * @param mine   this rank's call's tag
     */
    static JcclException callsDiffer(int peer, long theirs, int rank, long mine) {
        return new JcclException(ErrorCode.INVALID_USAGE, "operations do not match across ranks: rank " + peer
                + " called " + Fingerprint.describe(theirs) + " while rank " + rank + " called "
                + Fingerprint.describe(mine) + " (different: " + Fingerprint.difference(mine, theirs) + ")");
    }

    private JcclException failure(NetException e, int peer, int member, boolean sending) {
        String what = member >= 0 ? members[member].describe() : "the current operation";
        // A transport may fail the send as well as the receive of a mismatched message. The exception's expected
        // tag is always the receiver's and its actual tag the sender's, so on the sending side they swap roles.
        long mine = sending ? e.actualTag() : e.expectedTag();
        long theirs = sending ? e.expectedTag() : e.actualTag();
        return switch (e.reason()) {
            case TAG_MISMATCH -> callsDiffer(peer, theirs, rank, mine);
            case TRUNCATED -> new JcclException(ErrorCode.INVALID_USAGE, "operations do not match across ranks: rank "
                    + (sending ? rank : peer) + " sent more data than rank " + (sending ? peer : rank)
                    + " expected in " + what + " (different counts?): " + e.getMessage());
            case PEER_CLOSED -> new JcclException(ErrorCode.REMOTE_ERROR, name(peer) + " closed its connection while rank " + rank + " was " + (sending ? "sending to" : "waiting for")
                    + " it in " + what + " (it exited, aborted, failed, or issued fewer operations)", e);
            case CLOSED -> new JcclException(ErrorCode.ABORTED, "the communicator was closed during " + what, e);
            case IO_ERROR -> new JcclException(ErrorCode.REMOTE_ERROR, "connection to " + name(peer) + " failed in "
                    + what + ": " + e.getMessage(), e);
            case PROTOCOL_ERROR -> new JcclException(ErrorCode.REMOTE_ERROR, "rank " + peer
                    + " broke the transport protocol in " + what + ": " + e.getMessage(), e);
        };
    }

    /** @return which peers the current run still waits for, for timeout messages */
    @Override
    public String waitingFor() {
        java.util.TreeSet<Integer> from = new java.util.TreeSet<>();
        for (int lane = 0; lane < lanes; lane++) {
            List<Step> steps = plan.lanes().get(lane);
            if (stepIndex[lane] < steps.size()) {
                Step s = steps.get(stepIndex[lane]);
                if (s.recvPeer0() >= 0 && !recv0Done[lane]) {
                    from.add(s.recvPeer0());
                }
                if (s.recvPeer1() >= 0 && !recv1Done[lane]) {
                    from.add(s.recvPeer1());
                }
            }
        }
        String text = from.isEmpty() ? "" : "data from ranks " + from;
        if (!sends.isEmpty()) {
            text += (text.isEmpty() ? "" : " and ") + "ranks " + sends.pendingPeers() + " to take data sent to them";
        }
        return text.isEmpty() ? "local work" : text;
    }

    /** Forgets the current run after a failure (its connections are closed). */
    @Override
    public void abandon() {
        sends.clear();
        staging.releaseAll();
        for (int i = 0; i < lanes; i++) {
            resetRequests(i);
            dropAhead(i);
            slot0[i] = -1;
            slot1[i] = -1;
        }
        lanes = 0;
    }
}
