package io.jccl.metaroce.sim;

import io.jccl.metaroce.protocol.Counter;
import org.agrona.collections.Int2ObjectHashMap;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * One connection of a {@link GoBackNEndpoint}: a sender half (the posted work in PSN order, the window between the
 * first unacknowledged PSN and the next to send, the retransmission state, the DCQCN rate) and a receiver half (the
 * next PSN expected, the posted receives, the control reply due). The endpoint runs the protocol; this holds the
 * state and the steps that touch nothing else.
 */
final class GoBackNConnection {
    /** Posted WRITE or SEND. */
    static final class Work {
        long workId;
        boolean send;
        int target;
        long remoteBase;
        MemorySegment local;
        long offset;
        long length;
        long firstPsn;
        long packets;
    }

    /**
     * Posted RECV.
     *
     * @param workId   its work id
     * @param memory   where the message lands
     * @param offset   where in {@code memory}
     * @param capacity the bytes it takes
     */
    record Recv(long workId, MemorySegment memory, long offset, long capacity) {
    }

    final int id;
    final long peer;
    boolean initiator;
    boolean established;
    boolean closed;
    boolean helloDue;
    boolean helloAckDue;
    boolean closeDue;
    long helloDeadlineNs = Long.MAX_VALUE;
    /** DCQCN (null: off): the sender's rate, and when its next packet may leave, in femtoseconds. */
    DcqcnRate rate;
    long nextSendFs;
    /** DCQCN receiver: a CNP is due, and when the last one went. */
    boolean cnpDue;
    long lastCnpNs = Long.MIN_VALUE;
    int pendingWork;

    // Sender: works[(head + i) & mask] for i < count, in PSN order.
    Work[] works = new Work[16];
    int head;
    int count;
    /** Index (from head) of the work holding PSN nxt. */
    int cursor;
    long una;
    long nxt;
    long end;
    long highestSent;
    long rtoDeadlineNs = Long.MAX_VALUE;
    long rnrUntilNs = Long.MIN_VALUE;
    boolean rnrWaiting;
    int dupAcks;
    boolean wentBack;
    Counter retransmitReason = Counter.RETRANSMITS_RTO;

    // Receiver.
    long expected;
    boolean nakSent;
    int unacked;
    long ackDeadlineNs = Long.MAX_VALUE;
    /** Pending control reply: 0 none, else T_ACK, T_NAK or T_RNR (the strongest wins). */
    int control;
    final Int2ObjectHashMap<ArrayDeque<Recv>> recvs = new Int2ObjectHashMap<>();

    GoBackNConnection(int id, long peer) {
        this.id = id;
        this.peer = peer;
    }

    Work work(int i) {
        return works[(head + i) & (works.length - 1)];
    }

    /** Appends posted work after the last (its PSNs follow theirs), growing the ring when full. */
    void append(Work w) {
        if (count == works.length) {
            Work[] grown = new Work[works.length * 2];
            for (int i = 0; i < count; i++) {
                grown[i] = work(i);
            }
            works = grown;
            head = 0;
        }
        works[(head + count) & (works.length - 1)] = w;
        count++;
    }

    /** Queues a control reply; RNR beats NAK beats ACK (each also acknowledges everything before expected). */
    void reply(int type) {
        if (control == 0 || rank(type) > rank(control)) {
            control = type;
        }
    }

    private static int rank(int type) {
        return switch (type) {
            case GoBackNEndpoint.T_RNR -> 3;
            case GoBackNEndpoint.T_NAK -> 2;
            default -> 1;
        };
    }

    /** Sends again from the first unacknowledged PSN; the retransmissions count as {@code reason}. */
    void goBack(long nowNs, Counter reason, long rtoNs) {
        nxt = una;
        wentBack = true;
        retransmitReason = reason;
        seek();
        rtoDeadlineNs = nowNs + rtoNs;
    }

    /** Points the cursor at the work holding PSN nxt. */
    void seek() {
        int i = 0;
        while (i < count) {
            Work w = work(i);
            if (nxt < w.firstPsn + w.packets) {
                break;
            }
            i++;
        }
        cursor = i;
    }

    /** @return whether the connection has data its window lets go (pacing aside) */
    boolean windowOpen(int windowPackets) {
        return established && !closed && !rnrWaiting && nxt < Math.min(end, una + windowPackets);
    }
}
