package io.jccl.metaroce.net;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Verbs;
import io.jccl.net.NetException;
import io.jccl.net.ProgressSignal;
import io.jccl.net.TransportContext;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link MetaRoceNetTransport}'s channels are set up, on its driving thread: a connect opens (or shares) a
 * MetaRoCE connection from the initiating endpoint and completes once the handshake established it; on the accepting
 * endpoint, every connection a peer opened gets HELLO receives, and each HELLO opens the receiving end of a channel
 * for the listener it names (see {@link ControlMessages}).
 */
final class ConnectionSetup {
    private static final int HELLO_BOXES = 4;

    private final MetaRoceNetTransport transport;
    private final TransportContext context;
    private final MetaRoceOptions options;
    private final NanoClock clock;
    private final Arena arena;
    private final Side accepting;
    private final Side initiating;
    /** Every channel of the transport (its close breaks them all). */
    private final List<Channel> channels;

    // Driving thread only.
    private final Int2ObjectHashMap<MetaRoceListener> listeners = new Int2ObjectHashMap<>();
    private final List<MetaRocePendingConnect> connecting = new ArrayList<>();
    private final Int2IntHashMap channelsOpened = new Int2IntHashMap(0);
    private int acceptedSeen;

    ConnectionSetup(MetaRoceNetTransport transport, TransportContext context, MetaRoceOptions options,
                    NanoClock clock, Arena arena, Side accepting, Side initiating, List<Channel> channels) {
        this.transport = transport;
        this.context = context;
        this.options = options;
        this.clock = clock;
        this.arena = arena;
        this.accepting = accepting;
        this.initiating = initiating;
        this.channels = channels;
    }

    /** A listener now takes the channels whose HELLO names {@code id}. */
    void addListener(int id, MetaRoceListener listener) {
        listeners.put(id, listener);
    }

    /** @return whether connects wait for their handshake ({@link #advanceConnects()} has work) */
    boolean hasPendingConnects() {
        return !connecting.isEmpty();
    }

    /** The transport closed: every connect still waiting fails, saying {@code why}. */
    void failPendingConnects(String why) {
        for (MetaRocePendingConnect p : connecting) {
            p.fail(new NetException(NetException.Reason.CLOSED, why));
        }
    }

    /** Starts a connect a caller asked for: its channel's connection handshakes from the initiating endpoint. */
    void startConnect(MetaRocePendingConnect pending, ProgressSignal signal) {
        if (pending.isCancelled()) {
            return;
        }
        long peer;
        try {
            peer = initiating.driver.addPeer(pending.handle.paths());
        } catch (IllegalArgumentException e) {
            pending.fail(new NetException(NetException.Reason.PROTOCOL_ERROR, "bad metaroce handle: " + e.getMessage()));
            return;
        }
        // An interface lookup: once per connect, for both the payload and the path count.
        boolean peerOnThisHost = PacketPayload.onThisHost(pending.handle.paths().getFirst().getAddress());
        int connection = initiating.endpoint.connect(clock.nanoTime(), peer, pending.handle.handshakeKey(),
                PacketPayload.towards(peerOnThisHost, options.payloadBytes(), context.bindAddress()),
                pathsTowards(peerOnThisHost));
        int index = channelsOpened.get(connection);
        channelsOpened.put(connection, index + 1);
        initiating.peerRanks.put(connection, pending.handle.rank());
        MetaRoceSendConnection channel = new MetaRoceSendConnection(transport, initiating, connection, index,
                pending.handle.rank(), signal, options.maxInflight(), arena);
        channels.add(channel);
        pending.channel = channel;
        connecting.add(pending);
    }

    /**
     * Paths of a connection to a listener: {@code JCCL_METAROCE_LOCAL_PATHS} towards an address of this host, whose
     * datagrams all cross the loopback device (one route: spraying buys nothing there and costs a socket, a send
     * batch and acknowledgements per path), unless a relay stands between (it models a fabric's paths); otherwise
     * {@code JCCL_METAROCE_PATHS}.
     */
    private int pathsTowards(boolean peerOnThisHost) {
        return options.relay() == null && peerOnThisHost ? options.localPaths() : options.paths();
    }

    /** Completes, fails or times out the connects that wait for their handshake; @return how many ended */
    int advanceConnects() {
        long nowNs = clock.nanoTime();
        int work = 0;
        for (int i = connecting.size() - 1; i >= 0; i--) {
            MetaRocePendingConnect p = connecting.get(i);
            MetaRoceSendConnection channel = p.channel;
            boolean done = true;
            if (p.isCancelled()) {
                channels.remove(channel);   // it never said hello: nothing to tell the listener
            } else if (channel.isClosed()) {
                p.fail(channel.closedFailure());
            } else if (initiating.endpoint.isEstablished(channel.connectionId)) {
                p.complete(channel);
                channel.signal();
            } else if (nowNs - p.deadlineNs > 0) {
                String why = "timed out after " + context.connectTimeout().toMillis() + " ms connecting to "
                        + p.target() + ": no answer to the MetaRoCE handshake (is the peer's transport running and "
                        + "its address reachable?)";
                channel.broken(NetException.Reason.IO_ERROR, why);
                initiating.endpoint.close(nowNs, channel.connectionId);
                p.fail(new NetException(NetException.Reason.IO_ERROR, why));
            } else {
                done = false;
            }
            if (done) {
                connecting.remove(i);
                work++;
            }
        }
        return work;
    }

    /** Posts HELLO receives on every connection a peer opened to the accepting endpoint since the last look. */
    int discoverAccepted() {
        int work = 0;
        while (acceptedSeen < accepting.endpoint.connectionCount()) {
            int connection = accepting.endpoint.connectionIdAt(acceptedSeen++);
            for (int i = 0; i < HELLO_BOXES; i++) {
                new HelloBox(connection, arena.allocate(ControlMessages.BOX_BYTES, 8)).post();
            }
            work++;
        }
        return work;
    }


    /** A receive for one HELLO on an accepted connection, posted again after each. */
    private final class HelloBox implements io.jccl.metaroce.net.WorkOwner {
        private final int connection;
        private final MemorySegment box;

        HelloBox(int connection, MemorySegment box) {
            this.connection = connection;
            this.box = box;
        }

        void post() {
            if (accepting.postRecv(this, connection, 0, box, 0, ControlMessages.BOX_BYTES) == Verbs.QUEUE_FULL) {
                MetaRoceNetTransport.LOG.warn("metaroce: cannot post a HELLO receive: the connection's work queue"
                        + " is full");
            }
        }

        @Override
        public void onWork(io.jccl.metaroce.protocol.WorkKind kind, CompletionStatus status, long bytes) {
            if (status == CompletionStatus.CONNECTION_CLOSED || status == CompletionStatus.PEER_DONE) {
                return;
            }
            if (status == CompletionStatus.OK && ControlMessages.isHello(box, bytes)) {
                int listenerId = ControlMessages.i32(box, ControlMessages.HELLO_LISTENER_AT);
                MetaRoceListener listener = listeners.get(listenerId);
                int peerRank = ControlMessages.i32(box, ControlMessages.HELLO_RANK_AT);
                accepting.peerRanks.put(connection, peerRank);
                MetaRoceRecvConnection channel = new MetaRoceRecvConnection(transport, accepting,
                        connection, ControlMessages.i32(box, ControlMessages.HELLO_CHANNEL_AT), peerRank,
                        listener == null ? ProgressSignal.NONE : listener.signal(), options.maxInflight(), arena);
                channels.add(channel);
                channel.open();
                if (listener == null || listener.isClosed()) {
                    channel.refuse();
                } else {
                    listener.offer(channel);
                }
            } else {
                MetaRoceNetTransport.LOG.warn("metaroce: ignored a malformed HELLO (" + bytes + " bytes, "
                        + status + ")");
            }
            post();
        }
    }
}
