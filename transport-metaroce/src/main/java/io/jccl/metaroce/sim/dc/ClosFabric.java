package io.jccl.metaroce.sim.dc;

import io.jccl.metaroce.sim.EventQueue;

import java.util.Arrays;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;

/**
 * A {@link ClosTopology} with its ports' queues, driven on virtual time (picoseconds) by one thread.
 *
 * <p>Each port is an output FIFO (tail drop at the buffer, an ECN mark on an ECN-capable packet that arrives to a queue
 * deeper than the threshold) feeding its link (serialization at the link rate, then the propagation delay). Per port,
 * only the head's departure and the wire's first arrival are events in the heap: a port's packets wait in its FIFO,
 * and the packets on one wire arrive in the order they left. Switches forward an arriving packet at once (cut-through
 * costs nothing beyond store-and-forward here: every hop serializes the whole packet).
 *
 * <p>Random loss applies to data packets when they leave a port ({@link ClosConfig#lossOnEveryLink}: every port, else
 * only ToR-to-host ports). A failed port drops what it holds and what arrives. Every drop is reported to the source
 * host's agent ({@link HostAgent#onDropped}, an oracle only an ideal transport uses).
 */
public final class ClosFabric {
    private static final int DEPART = 0;
    private static final int ARRIVE = 1;
    private static final int TIMER = 2;
    private static final int ACTION = 3;

    private final ClosTopology topology;
    private final ClosConfig config;
    private final PacketStore packets = new PacketStore(1 << 16);
    private final EventQueue queue = new EventQueue(1 << 16);
    private final SplittableRandom random;
    private final HostAgent[] agents;

    private final long psPerByte;
    private final long delayPs;
    private final long bufferBytes;
    private final long ecnBytes;
    private final double loss;

    // Per port: the FIFO (head, tail, bytes), whether its head is being serialized, the wire (head, tail), whether
    // it is up, and its counters.
    private final int[] qHead;
    private final int[] qTail;
    private final long[] qBytes;
    private final boolean[] busy;
    private final int[] wireHead;
    private final int[] wireTail;
    private final boolean[] down;
    private final long[] maxQueueBytes;
    private final long[] sentBytes;
    /** Per port: the integral of its queue's bytes over time (byte-ps) up to its last change, and when that was. */
    private final long[] queueBytePs;
    private final long[] queueChangedPs;

    private final long[] timerAtPs;

    /** Scheduled failures and recoveries: the ports each takes down (true) or up (false). */
    private int[][] actionPorts = new int[8][];
    private boolean[] actionDown = new boolean[8];
    private int actionCount;

    private long nowPs;
    private long events;
    private long tailDrops;
    private long randomLosses;
    private long failureDrops;
    private long ecnMarks;
    private long delivered;
    private LongConsumer progress;
    private long progressEvery = Long.MAX_VALUE;

    /**
     * @param topology the wiring
     * @param seed     the seed of every random choice (loss)
     */
    public ClosFabric(ClosTopology topology, long seed) {
        this.topology = Objects.requireNonNull(topology, "topology");
        this.config = topology.config();
        this.random = new SplittableRandom(seed);
        this.agents = new HostAgent[topology.hosts()];
        this.psPerByte = config.psPerByte();
        this.delayPs = config.linkDelayNs() * 1000;
        this.bufferBytes = config.queueBytes();
        this.ecnBytes = config.ecnThresholdBytes();
        this.loss = config.lossProbability();
        int ports = topology.ports();
        qHead = new int[ports];
        qTail = new int[ports];
        qBytes = new long[ports];
        busy = new boolean[ports];
        wireHead = new int[ports];
        wireTail = new int[ports];
        down = new boolean[ports];
        maxQueueBytes = new long[ports];
        sentBytes = new long[ports];
        queueBytePs = new long[ports];
        queueChangedPs = new long[ports];
        Arrays.fill(qHead, -1);
        Arrays.fill(qTail, -1);
        Arrays.fill(wireHead, -1);
        Arrays.fill(wireTail, -1);
        timerAtPs = new long[topology.hosts()];
        Arrays.fill(timerAtPs, Long.MAX_VALUE);
    }

    /** Places {@code agent} on {@code host}. */
    public void attach(int host, HostAgent agent) {
        agents[host] = Objects.requireNonNull(agent, "agent");
    }

    /** @return the wiring */
    public ClosTopology topology() {
        return topology;
    }

    /** @return the packet pool (agents allocate, read and free packets through it) */
    public PacketStore packets() {
        return packets;
    }

    /** @return the virtual time, in ps */
    public long nowPs() {
        return nowPs;
    }

    /** Calls {@code listener} with the event count every {@code everyEvents} events (a progress bar). */
    public void onProgress(long everyEvents, LongConsumer listener) {
        if (everyEvents < 1) {
            throw new IllegalArgumentException("progress interval must be >= 1 event, not " + everyEvents);
        }
        this.progressEvery = everyEvents;
        this.progress = listener;
    }

    // ---- What hosts do ----

    /** Host {@code host} hands {@code packet} to its NIC port into {@code plane}. */
    public void send(int host, int plane, int packet) {
        enqueue(topology.nicPort(host, plane), packet);
    }

    /** @return whether host {@code host}'s NIC port into {@code plane} is sending or holds packets */
    public boolean nicBusy(int host, int plane) {
        return busy[topology.nicPort(host, plane)];
    }

    /**
     * Sets host {@code host}'s one timer to {@code atPs} (replacing the one set before; {@link Long#MAX_VALUE}:
     * none). A timer in the past fires at once.
     */
    public void setTimer(int host, long atPs) {
        long at = atPs == Long.MAX_VALUE ? atPs : Math.max(atPs, nowPs);
        timerAtPs[host] = at;
        if (at != Long.MAX_VALUE) {
            queue.push(at, (long) TIMER << 32 | host);
        }
    }

    // ---- Failures ----

    /** Takes every port of {@code plane} (its switches' and the hosts' NIC ports into it) down at {@code atPs}. */
    public void failPlaneAt(int plane, long atPs) {
        schedulePlane(plane, atPs, true);
    }

    /** Brings {@code plane} back up at {@code atPs}. */
    public void restorePlaneAt(int plane, long atPs) {
        schedulePlane(plane, atPs, false);
    }

    private void schedulePlane(int plane, long atPs, boolean fail) {
        if (plane < 0 || plane >= topology.planes()) {
            throw new IllegalArgumentException("plane " + plane + " is not in 0-" + (topology.planes() - 1));
        }
        schedulePorts(topology.planePorts(plane), atPs, fail);
    }

    /** Takes {@code ports} down ({@code fail}) or brings them up at {@code atPs} ({@link FailureEvent#ports}). */
    public void schedulePorts(int[] ports, long atPs, boolean fail) {
        if (atPs < nowPs) {
            throw new IllegalArgumentException("a failure at " + atPs + " ps is in the past (now " + nowPs + ")");
        }
        for (int port : ports) {
            if (port < 0 || port >= topology.ports()) {
                throw new IllegalArgumentException("port " + port + " is not in 0-" + (topology.ports() - 1));
            }
        }
        if (actionCount == actionPorts.length) {
            actionPorts = Arrays.copyOf(actionPorts, actionCount * 2);
            actionDown = Arrays.copyOf(actionDown, actionCount * 2);
        }
        actionPorts[actionCount] = ports.clone();
        actionDown[actionCount] = fail;
        queue.push(atPs, (long) ACTION << 32 | actionCount++);
    }

    /** Takes one port down (true) or up (false) now. */
    public void setPortDown(int port, boolean isDown) {
        down[port] = isDown;
        if (isDown) {
            int p = qHead[port];
            while (p >= 0) {
                int next = packets.next(p);
                if (p == qHead[port] && busy[port]) {
                    p = next;   // the one on the wire finishes (its departure event is queued)
                    continue;
                }
                drop(p);
                failureDrops++;
                p = next;
            }
            accumulate(port);
            if (busy[port]) {
                int head = qHead[port];
                packets.next(head, -1);
                qTail[port] = head;
                qBytes[port] = packets.size(head);
            } else {
                qHead[port] = -1;
                qTail[port] = -1;
                qBytes[port] = 0;
            }
        }
    }

    private void applyAction(int action) {
        for (int port : actionPorts[action]) {
            setPortDown(port, actionDown[action]);
        }
    }

    // ---- The event loop ----

    /**
     * Runs events until the heap is empty, virtual time would pass {@code untilPs}, or {@code flows} (when not null)
     * has none unfinished.
     *
     * @return the virtual time reached
     */
    public long run(long untilPs, Flows flows) {
        while (!queue.isEmpty()) {
            long at = queue.peekTimeNs();
            if (at > untilPs || flows != null && flows.unfinished() == 0) {
                break;
            }
            long event = queue.peekPayload();
            queue.pop();
            int kind = (int) (event >>> 32);
            int id = (int) event;
            if (kind == TIMER && timerAtPs[id] != at) {
                continue;   // replaced by a later setTimer: not an event
            }
            nowPs = at;
            events++;
            switch (kind) {
                case DEPART -> depart(id);
                case ARRIVE -> arrive(id);
                case TIMER -> {
                    timerAtPs[id] = Long.MAX_VALUE;
                    agents[id].onTimer(this, at);
                }
                default -> applyAction(id);
            }
            if (events % progressEvery == 0) {
                progress.accept(events);
            }
        }
        return nowPs;
    }

    private void enqueue(int port, int p) {
        if (down[port]) {
            failureDrops++;
            drop(p);
            return;
        }
        int size = packets.size(p);
        long depth = qBytes[port];
        if (depth + size > bufferBytes && depth > 0) {
            tailDrops++;
            drop(p);
            return;
        }
        if (ecnBytes > 0 && depth > ecnBytes && (packets.flags(p) & PacketStore.ECT) != 0) {
            packets.mark(p);
            ecnMarks++;
        }
        packets.next(p, -1);
        accumulate(port);
        if (qTail[port] < 0) {
            qHead[port] = p;
        } else {
            packets.next(qTail[port], p);
        }
        qTail[port] = p;
        depth += size;
        qBytes[port] = depth;
        if (depth > maxQueueBytes[port]) {
            maxQueueBytes[port] = depth;
        }
        if (!busy[port]) {
            busy[port] = true;
            queue.push(nowPs + size * psPerByte, (long) DEPART << 32 | port);
        }
    }

    /**
     * Takes the first packet off a port's list (its send queue, or the packets on its wire).
     *
     * @return the packet; {@code head[port]} is the next one now (-1: the list is empty)
     */
    private int takeFirst(int[] head, int[] tail, int port) {
        int p = head[port];
        int next = packets.next(p);
        head[port] = next;
        if (next < 0) {
            tail[port] = -1;
        }
        return p;
    }

    private void depart(int port) {
        int p = takeFirst(qHead, qTail, port);
        int next = qHead[port];
        int size = packets.size(p);
        accumulate(port);
        qBytes[port] -= size;
        sentBytes[port] += size;
        if (down[port]) {
            failureDrops++;
            drop(p);
        } else if (loss > 0 && (packets.flags(p) & PacketStore.DATA) != 0
                && (config.lossOnEveryLink() || topology.portKind(port) == ClosTopology.TO_HOST)
                && random.nextDouble() < loss) {
            randomLosses++;
            drop(p);
        } else {
            long arrive = nowPs + delayPs;
            packets.arriveAtPs(p, arrive);
            packets.next(p, -1);
            if (wireTail[port] < 0) {
                wireHead[port] = p;
                queue.push(arrive, (long) ARRIVE << 32 | port);
            } else {
                packets.next(wireTail[port], p);
            }
            wireTail[port] = p;
        }
        if (next >= 0) {
            queue.push(nowPs + packets.size(next) * psPerByte, (long) DEPART << 32 | port);
        } else {
            busy[port] = false;
            if (topology.portKind(port) == ClosTopology.NIC) {
                agents[port / topology.planes()].onNicIdle(this, nowPs, port % topology.planes());
            }
        }
    }

    private void arrive(int port) {
        int p = takeFirst(wireHead, wireTail, port);
        int next = wireHead[port];
        if (next >= 0) {
            queue.push(packets.arriveAtPs(next), (long) ARRIVE << 32 | port);
        }
        int node = topology.portTarget(port);
        if (node < 0) {
            failureDrops++;   // a ToR port to an empty slot: no route sends there
            drop(p);
        } else if (topology.isHost(node)) {
            delivered++;
            if (timelineBucketPs > 0 && (packets.flags(p) & PacketStore.DATA) != 0) {
                recordDelivery(packets.size(p));
            }
            agents[node].onPacket(this, nowPs, p);
        } else {
            enqueue(topology.route(node, packets.dst(p), packets.flowHash(p)), p);
        }
    }

    /** Adds the queue's bytes since its last change to its integral (before every change). */
    private void accumulate(int port) {
        // Saturates rather than wraps: 2^63 byte-ps is a 1 MiB queue for about 100 days of virtual time.
        long add = qBytes[port] * (nowPs - queueChangedPs[port]);
        queueBytePs[port] = add < 0 || queueBytePs[port] + add < 0 ? Long.MAX_VALUE : queueBytePs[port] + add;
        queueChangedPs[port] = nowPs;
    }

    private void drop(int p) {
        HostAgent source = agents[packets.src(p)];
        if (source != null) {
            source.onDropped(this, nowPs, p);
        }
        packets.free(p);
    }

    // ---- Throughput over time ----

    private long timelineBucketPs;
    private long[] timelineBytes = new long[0];

    /** Counts the data bytes delivered to hosts per {@code bucketPs} of virtual time ({@link #timelineBytes}). */
    public void recordTimeline(long bucketPs) {
        if (bucketPs < 1) {
            throw new IllegalArgumentException("a timeline bucket must be at least 1 ps, not " + bucketPs);
        }
        this.timelineBucketPs = bucketPs;
    }

    private void recordDelivery(int bytes) {
        long bucket = nowPs / timelineBucketPs;
        if (bucket >= Integer.MAX_VALUE - 8) {
            return;
        }
        if (bucket >= timelineBytes.length) {
            timelineBytes = Arrays.copyOf(timelineBytes, (int) Math.max(bucket + 1, 2L * timelineBytes.length));
        }
        timelineBytes[(int) bucket] += bytes;
    }

    /** @return data bytes delivered to hosts in each timeline bucket, up to the last bucket reached */
    public long[] timelineBytes() {
        return Arrays.copyOf(timelineBytes, (int) Math.min(timelineBytes.length, nowPs / Math.max(1, timelineBucketPs)
                + 1));
    }

    // ---- Counters ----

    /** @return events processed (departures, arrivals, timers, failures) */
    public long events() {
        return events;
    }

    /** @return packets dropped at a full queue */
    public long tailDrops() {
        return tailDrops;
    }

    /** @return data packets lost at random */
    public long randomLosses() {
        return randomLosses;
    }

    /** @return packets dropped by failed ports */
    public long failureDrops() {
        return failureDrops;
    }

    /** @return ECN marks */
    public long ecnMarks() {
        return ecnMarks;
    }

    /** @return packets delivered to hosts */
    public long delivered() {
        return delivered;
    }

    /** @return the deepest any port's queue was, in bytes */
    public long maxQueueBytes() {
        long max = 0;
        for (long q : maxQueueBytes) {
            max = Math.max(max, q);
        }
        return max;
    }

    /**
     * @return the time-averaged queue of the switch ports that sent anything, averaged over them, in bytes, from time
     *         0 to now
     */
    public double meanQueueBytes() {
        double sum = 0;
        int n = 0;
        for (int port = 0; port < qBytes.length; port++) {
            if (topology.portKind(port) != ClosTopology.NIC && sentBytes[port] > 0) {
                sum += timeAveragedQueueBytes(port);
                n++;
            }
        }
        return n == 0 ? 0 : sum / n;
    }

    /** @return the highest time-averaged queue of any switch port, in bytes, from time 0 to now */
    public double busiestMeanQueueBytes() {
        double max = 0;
        for (int port = 0; port < qBytes.length; port++) {
            if (topology.portKind(port) != ClosTopology.NIC) {
                max = Math.max(max, timeAveragedQueueBytes(port));
            }
        }
        return max;
    }

    /** @return {@code port}'s queue averaged over time from 0 to now, in bytes */
    public double timeAveragedQueueBytes(int port) {
        if (nowPs == 0) {
            return 0;
        }
        double integral = queueBytePs[port] + (double) qBytes[port] * (nowPs - queueChangedPs[port]);
        return integral / nowPs;
    }

    /** @return the deepest {@code port}'s queue was, in bytes */
    public long maxQueueBytes(int port) {
        return maxQueueBytes[port];
    }

    /** @return bytes {@code port} has sent (or lost on its wire) */
    public long sentBytes(int port) {
        return sentBytes[port];
    }
}
