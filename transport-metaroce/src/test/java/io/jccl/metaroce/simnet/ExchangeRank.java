package io.jccl.metaroce.simnet;

import io.jccl.metaroce.net.MetaRoceNetTransport;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.PendingConnect;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A simulated rank that runs a dissemination exchange over its {@code metaroce} transport and then closes at once,
 * the way a job's last barrier ends: round k sends to rank {@code r + d} and receives from {@code r - d} (d cycling
 * through powers of two), with empty, small and multi-packet messages, every byte checked; as soon as its last round
 * is complete the rank closes its connections and its transport. A rank that closes while a peer still needs
 * something from it (a message, an acknowledgement) makes that peer fail or hang: what {@link CloseRaceSimTest} looks
 * for.
 */
final class ExchangeRank extends PeeredProcess {
    static final long[] SIZES = {0, 8, 20_000};
    private static final long HELLO_TAG = 0x48454C4CL;

    enum Phase { CONNECT, EXCHANGE, CLOSING, DONE, FAILED }

    private final int rank;
    private final int size;
    private final int rounds;
    private final PendingConnect[] connecting;
    private final SendConnection[] sendTo;
    private final RecvConnection[] recvFrom;
    private final RecvConnection[] accepted;
    private final NetRequest[] helloSends;
    private final NetRequest[] helloRecvs;
    private final MemorySegment helloOut;
    private final MemorySegment helloIn;
    private final MemorySegment sendBuffer;
    private final MemorySegment recvBuffer;
    private int acceptedCount;
    private int identified;
    private int round;
    private NetRequest send;
    private NetRequest recv;
    private boolean sendDone;
    private boolean recvDone;
    Phase phase = Phase.CONNECT;
    String failure;
    long doneAtNs = -1;

    ExchangeRank(int rank, int size, int rounds, MetaRoceNetTransport transport, Arena arena) {
        super(transport);
        this.rank = rank;
        this.size = size;
        this.rounds = rounds;
        this.connecting = new PendingConnect[size];
        this.sendTo = new SendConnection[size];
        this.recvFrom = new RecvConnection[size];
        this.accepted = new RecvConnection[size];
        this.helloSends = new NetRequest[size];
        this.helloRecvs = new NetRequest[size];
        this.helloOut = arena.allocate(4);
        this.helloOut.set(ValueLayout.JAVA_INT, 0, rank);
        this.helloIn = arena.allocate(4L * size);
        this.sendBuffer = arena.allocate(SIZES[2]);
        this.recvBuffer = arena.allocate(SIZES[2]);
    }

    boolean finished() {
        return phase == Phase.DONE || phase == Phase.FAILED;
    }

    @Override
    public long nextDeadlineNs() {
        return Long.MAX_VALUE;
    }

    @Override
    public int step(long nowNs) {
        try {
            return switch (phase) {
                case CONNECT -> connect();
                case EXCHANGE -> exchange(nowNs);
                case CLOSING -> closing(nowNs);
                case DONE, FAILED -> 0;
            };
        } catch (NetException | IllegalStateException e) {
            failure = "rank " + rank + " in " + phase + (phase == Phase.EXCHANGE ? " round " + round : "") + ": " + e;
            phase = Phase.FAILED;
            return 1;
        }
    }

    private int connect() {
        int work = 0;
        for (int p = 0; p < size; p++) {
            if (p == rank) {
                continue;
            }
            if (sendTo[p] == null) {
                if (connecting[p] == null) {
                    connecting[p] = transport.connect(handles[p], null);
                    work++;
                }
                SendConnection c = connecting[p].poll();
                if (c != null) {
                    sendTo[p] = c;
                    helloSends[p] = c.isend(helloOut, 0, 4, HELLO_TAG, null);
                    work++;
                }
            }
        }
        RecvConnection c;
        while (acceptedCount < size - 1 && (c = listener.accept()) != null) {
            accepted[acceptedCount] = c;
            helloRecvs[acceptedCount] = c.irecv(helloIn, 4L * acceptedCount, 4, HELLO_TAG, null);
            acceptedCount++;
            work++;
        }
        for (int i = 0; i < acceptedCount; i++) {
            if (helloRecvs[i] != null && helloRecvs[i].test() != NetRequest.NOT_DONE) {
                helloRecvs[i] = null;
                int from = helloIn.get(ValueLayout.JAVA_INT, 4L * i);
                recvFrom[from] = accepted[i];
                identified++;
                work++;
            }
        }
        boolean hellosSent = true;
        for (int p = 0; p < size; p++) {
            if (p != rank) {
                if (helloSends[p] != null && helloSends[p].test() != NetRequest.NOT_DONE) {
                    helloSends[p] = null;
                    work++;
                }
                hellosSent &= sendTo[p] != null && helloSends[p] == null;
            }
        }
        if (hellosSent && identified == size - 1) {
            listener.close();
            phase = Phase.EXCHANGE;
            work++;
        }
        return work;
    }

    static int distance(int round, int size) {
        int steps = 32 - Integer.numberOfLeadingZeros(size - 1);
        return 1 << (round % Math.max(1, steps)) % size;
    }

    static byte pattern(int from, int round, long i) {
        return (byte) (from * 31 + round * 7 + i * 13);
    }

    private int exchange(long nowNs) {
        int work = 0;
        if (send == null && recv == null && !sendDone && !recvDone) {
            int d = Math.max(1, distance(round, size) % size);
            int to = (rank + d) % size;
            int from = (rank - d + size) % size;
            long bytes = SIZES[round % SIZES.length];
            for (long i = 0; i < bytes; i++) {
                sendBuffer.set(ValueLayout.JAVA_BYTE, i, pattern(rank, round, i));
            }
            recvBuffer.fill((byte) 0x55);
            recv = recvFrom[from].irecv(recvBuffer, 0, bytes, round, null);
            send = sendTo[to].isend(sendBuffer, 0, bytes, round, null);
            if (recv == null || send == null) {
                throw new IllegalStateException("no free request slot");
            }
            work++;
        }
        if (send != null && send.test() != NetRequest.NOT_DONE) {
            send = null;
            sendDone = true;
            work++;
        }
        if (recv != null) {
            long got = recv.test();
            if (got != NetRequest.NOT_DONE) {
                recv = null;
                recvDone = true;
                int d = Math.max(1, distance(round, size) % size);
                int from = (rank - d + size) % size;
                long bytes = SIZES[round % SIZES.length];
                if (got != bytes) {
                    throw new IllegalStateException("round " + round + ": received " + got + " bytes, expected "
                            + bytes);
                }
                for (long i = 0; i < bytes; i++) {
                    if (recvBuffer.get(ValueLayout.JAVA_BYTE, i) != pattern(from, round, i)) {
                        throw new IllegalStateException("round " + round + ": byte " + i + " from rank " + from
                                + " is wrong");
                    }
                }
                work++;
            }
        }
        if (sendDone && recvDone) {
            sendDone = false;
            recvDone = false;
            round++;
            work++;
            if (round == rounds) {
                for (int p = 0; p < size; p++) {
                    if (p != rank) {
                        sendTo[p].close();
                        recvFrom[p].close();
                    }
                }
                transport.beginClose();
                phase = Phase.CLOSING;
                return work + closing(nowNs);
            }
        }
        return work;
    }

    private int closing(long nowNs) {
        if (transport.pollClose()) {
            phase = Phase.DONE;
            doneAtNs = nowNs;
            return 1;
        }
        return 0;
    }
}
