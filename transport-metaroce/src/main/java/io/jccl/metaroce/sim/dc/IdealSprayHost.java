package io.jccl.metaroce.sim.dc;

import java.util.Arrays;

/**
 * The bound a real transport is measured against: a host that keeps each of its NIC ports busy at line rate, sprays
 * every packet on another path (a new UDP source port, so new ECMP choices; the planes in turn), and resends a dropped
 * packet as soon as the fabric's oracle ({@link HostAgent#onDropped}) reports it — no acknowledgements, no timeouts,
 * no congestion control (its packets are ECN-capable, so the fabric's marks count, but it does not slow down). Its
 * flows take turns packet by packet.
 */
public final class IdealSprayHost implements HostAgent {
    /** Bytes of headers in every packet (Ethernet, IP, UDP, transport); the rest of the MTU is payload. */
    public static final int HEADER_BYTES = 64;
    /** The first UDP source port sprayed over; 16,384 ports from here. */
    static final int FIRST_SOURCE_PORT = 49152;

    private final int host;
    private final Flows flows;
    private final int mtuBytes;
    private final int payloadBytes;
    private final int[] outgoing;
    private final int[] nextSeq;
    /** Per flow: packets received (at its destination's agent, which shares these arrays). */
    private final Shared shared;
    private int outgoingCount;
    private int cursor;
    private int[] resend = new int[16];   // (flow, seq) pairs dropped and not yet sent again
    private int resendHead;
    private int resendCount;
    private int sprayCounter;

    /** State every ideal host of one run shares: per flow, packets received. */
    public static final class Shared {
        private final int[] received;
        private final int[] packets;

        /** @param flows the run's flows */
        public Shared(Flows flows, int mtuBytes) {
            received = new int[flows.count()];
            packets = new int[flows.count()];
            int payload = mtuBytes - HEADER_BYTES;
            for (int f = 0; f < flows.count(); f++) {
                long n = (flows.bytes(f) + payload - 1) / payload;
                if (n > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("flow " + f + " has more than 2^31 packets");
                }
                packets[f] = (int) n;
            }
        }
    }

    /**
     * @param host     the host this runs on
     * @param flows    the run's flows (this host sends those whose source it is)
     * @param shared   the state the run's ideal hosts share
     * @param mtuBytes the wire size of a full packet
     */
    public IdealSprayHost(int host, Flows flows, Shared shared, int mtuBytes) {
        if (mtuBytes <= HEADER_BYTES) {
            throw new IllegalArgumentException("MTU " + mtuBytes + " leaves no payload after " + HEADER_BYTES
                    + " bytes of headers");
        }
        this.host = host;
        this.flows = flows;
        this.shared = shared;
        this.mtuBytes = mtuBytes;
        this.payloadBytes = mtuBytes - HEADER_BYTES;
        int n = 0;
        for (int f = 0; f < flows.count(); f++) {
            if (flows.src(f) == host) {
                n++;
            }
        }
        outgoing = new int[n];
        nextSeq = new int[n];
        for (int f = 0; f < flows.count(); f++) {
            if (flows.src(f) == host) {
                outgoing[outgoingCount++] = f;
            }
        }
    }

    /** Places an ideal host on every host of {@code fabric} and starts each at its first flow's start. */
    public static void attachAll(ClosFabric fabric, Flows flows, int mtuBytes) {
        Shared shared = new Shared(flows, mtuBytes);
        long[] firstStart = new long[fabric.topology().hosts()];
        Arrays.fill(firstStart, Long.MAX_VALUE);
        for (int f = 0; f < flows.count(); f++) {
            firstStart[flows.src(f)] = Math.min(firstStart[flows.src(f)], flows.startPs(f));
        }
        for (int h = 0; h < fabric.topology().hosts(); h++) {
            fabric.attach(h, new IdealSprayHost(h, flows, shared, mtuBytes));
            if (firstStart[h] != Long.MAX_VALUE) {
                fabric.setTimer(h, firstStart[h]);
            }
        }
    }

    @Override
    public void onTimer(ClosFabric fabric, long nowPs) {
        for (int plane = 0; plane < fabric.topology().planes(); plane++) {
            if (!fabric.nicBusy(host, plane)) {
                sendNext(fabric, nowPs, plane);
            }
        }
    }

    @Override
    public void onNicIdle(ClosFabric fabric, long nowPs, int plane) {
        sendNext(fabric, nowPs, plane);
    }

    @Override
    public void onPacket(ClosFabric fabric, long nowPs, int packet) {
        PacketStore packets = fabric.packets();
        int f = packets.flow(packet);
        packets.free(packet);
        if (++shared.received[f] == shared.packets[f]) {
            flows.finish(f, nowPs);
        }
    }

    @Override
    public void onDropped(ClosFabric fabric, long nowPs, int packet) {
        PacketStore packets = fabric.packets();
        if (resendCount * 2 == resend.length) {
            int[] grown = new int[resend.length * 2];
            for (int i = 0; i < resendCount; i++) {
                int at = (resendHead + 2 * i) % resend.length;
                grown[2 * i] = resend[at];
                grown[2 * i + 1] = resend[at + 1];
            }
            resend = grown;
            resendHead = 0;
        }
        int at = (resendHead + 2 * resendCount) % resend.length;
        resend[at] = packets.flow(packet);
        resend[at + 1] = packets.seq(packet);
        resendCount++;
        flows.retransmitted(packets.flow(packet));
        // Not sent from here (the drop may be this host's own send into a failed NIC port): a NIC that goes idle
        // sends it; if every NIC is idle, a timer one packet time from now does.
        boolean anyBusy = false;
        for (int plane = 0; plane < fabric.topology().planes(); plane++) {
            anyBusy |= fabric.nicBusy(host, plane);
        }
        if (!anyBusy) {
            fabric.setTimer(host, nowPs + (long) mtuBytes * fabric.topology().config().psPerByte());
        }
    }

    private void sendNext(ClosFabric fabric, long nowPs, int plane) {
        int f;
        int seq;
        if (resendCount > 0) {
            f = resend[resendHead];
            seq = resend[resendHead + 1];
            resendHead = (resendHead + 2) % resend.length;
            resendCount--;
        } else {
            int i = pickFlow(nowPs);
            if (i < 0) {
                wakeAtNextStart(fabric, nowPs);
                return;
            }
            f = outgoing[i];
            seq = nextSeq[i]++;
        }
        int n = shared.packets[f];
        long lastPayload = flows.bytes(f) - (long) (n - 1) * payloadBytes;
        int size = seq == n - 1 ? (int) lastPayload + HEADER_BYTES : mtuBytes;
        int port = FIRST_SOURCE_PORT + ((sprayCounter++ * 0x9E37 + host) & 0x3FFF);
        int p = fabric.packets().allocate(host, flows.dst(f), port, size, PacketStore.DATA | PacketStore.ECT, f, seq);
        fabric.send(host, plane, p);
    }

    /** Sets the timer to the earliest start of a flow not started yet, if any. */
    private void wakeAtNextStart(ClosFabric fabric, long nowPs) {
        long next = Long.MAX_VALUE;
        for (int i = 0; i < outgoingCount; i++) {
            long start = flows.startPs(outgoing[i]);
            if (start > nowPs && nextSeq[i] == 0) {
                next = Math.min(next, start);
            }
        }
        if (next != Long.MAX_VALUE) {
            fabric.setTimer(host, next);
        }
    }

    /** @return the index (into {@link #outgoing}) of the next started flow with packets left, in turn; -1: none */
    private int pickFlow(long nowPs) {
        for (int tried = 0; tried < outgoingCount; tried++) {
            int i = cursor;
            cursor = cursor + 1 == outgoingCount ? 0 : cursor + 1;
            int f = outgoing[i];
            if (nextSeq[i] < shared.packets[f] && flows.startPs(f) <= nowPs) {
                return i;
            }
        }
        return -1;
    }
}
