package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.CommConfig;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.bootstrap.Bootstrap;
import io.jccl.bootstrap.NetworkInterfaces;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.net.BoxPeer;
import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.NetProperties;
import io.jccl.net.NetRequest;
import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportProvider;
import io.jccl.net.PeerIdentity;
import io.jccl.net.PendingConnect;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;
import io.jccl.net.TransportContext;
import io.jccl.plan.Fingerprint;
import io.jccl.tune.Tuner;
import org.agrona.concurrent.SystemNanoClock;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;

/**
 * Builds a communicator from a {@link Bootstrap} in exactly three rounds, whatever happens, so every rank
 * stays in step and learns about every other rank's failure:
 * <ol>
 * <li>identities (host, JVM), from which each pair's transport is chosen;</li>
 * <li>listener handles of the transports each rank needs;</li>
 * <li>status: after connecting data and control connections to every peer, each rank reports success or
 *     why it failed; one failure fails the creation everywhere.</li>
 * </ol>
 */
final class CommInit {
    private static final Logger LOG = JcclLog.logger(Subsystem.INIT, CommInit.class);
    private static final Logger TUNE_LOG = JcclLog.logger(Subsystem.TUNE, CommInit.class);

    static final int ROUNDS = 3;
    private static final int HELLO_MAGIC = 0x4A43484C;   // "JCHL"
    private static final int HELLO_BYTES = 12;
    private static final int DATA = 0;
    private static final int CONTROL = 1;
    /** The entry of the round-2 record that carries the shrink socket's address (not a transport name). */
    private static final String SHRINK_ENTRY = "#shrink";
    private static final AtomicInteger NEXT_NAME = new AtomicInteger();

    private CommInit() {
    }

    static String nextName() {
        return "comm" + NEXT_NAME.getAndIncrement();
    }

    /** A rank that takes part in the rounds (of a split) but joins no communicator. */
    static void participateWithoutJoining(Bootstrap bootstrap) {
        for (int i = 0; i < ROUNDS; i++) {
            bootstrap.allGather(new byte[0]);
        }
    }

    static CommImpl create(Bootstrap bootstrap, CommConfig.Resolved config, String name) {
        return create(bootstrap, config, name, null);
    }

    /**
     * @param directGroup shared by the ranks of one {@code Communicator.local} call (null otherwise): joined when
     *                    every peer is connected by the in-JVM transport, so that all-reduce reads peers' buffers
     *                    in place ({@link DirectAllReduce})
     */
    static CommImpl create(Bootstrap bootstrap, CommConfig.Resolved config, String name, DirectGroup directGroup) {
        int rank = bootstrap.rank();
        int size = bootstrap.size();
        JcclLog.logVersionOnce();
        LOG.info("{} rank {} nranks {} - Init START", name, rank, size);
        ExecutorSignal signal = new ExecutorSignal();
        JcclException problem = null;

        // Round 1: identities.
        byte[][] identities = bootstrap.allGather(Identity.encode(rank));
        PeerIdentity[] peers = new PeerIdentity[size];
        String[] peerNames = new String[size];
        NetTransportProvider[] chosen = new NetTransportProvider[size];
        try {
            for (int p = 0; p < size; p++) {
                try {
                    Identity.Decoded decoded = Identity.decode(identities[p], p);
                    peers[p] = decoded.identity();
                    peerNames[p] = decoded.describe();
                } catch (IllegalArgumentException e) {
                    throw new JcclException(ErrorCode.REMOTE_ERROR, "rank " + p
                            + " sent a malformed identity during communicator creation: " + e.getMessage());
                }
            }
            for (int p = 0; p < size; p++) {
                if (p != rank) {
                    chosen[p] = Providers.choose(peers[rank], peers[p], config.transport());
                }
            }
        } catch (JcclException e) {
            problem = e;
        }

        // Round 2: listener handles.
        Map<String, NetTransport> transports = new LinkedHashMap<>();
        Map<String, Listener> listeners = new LinkedHashMap<>();
        byte[] handles = new byte[0];
        ServerSocket shrinkListener = null;
        if (problem == null) {
            try {
                InetAddress bindAddress = null;
                for (int p = 0; p < size; p++) {
                    NetTransportProvider provider = chosen[p];
                    if (provider == null || transports.containsKey(provider.name())) {
                        continue;
                    }
                    if (bindAddress == null && !provider.name().equals("local")) {
                        bindAddress = NetworkInterfaces.select(config.options());
                    }
                    TransportContext ctx = new TransportContext(peers[rank], size,
                            bindAddress == null ? InetAddress.getLoopbackAddress() : bindAddress,
                            config.initTimeout(), config.options());
                    NetTransport t = provider.create(ctx);
                    transports.put(provider.name(), t);
                    listeners.put(provider.name(), t.listen(signal));
                }
                boolean allInThisJvm = true;
                for (PeerIdentity p : peers) {
                    allInThisJvm &= p.jvmId().equals(peers[rank].jvmId());
                }
                shrinkListener = ShrinkRendezvous.listen(allInThisJvm || bindAddress == null
                        ? InetAddress.getLoopbackAddress() : bindAddress);
                Map<String, byte[]> entries = new LinkedHashMap<>();
                for (Map.Entry<String, Listener> e : listeners.entrySet()) {
                    entries.put(e.getKey(), e.getValue().handle());
                }
                entries.put(SHRINK_ENTRY, ShrinkRendezvous.encode(shrinkListener));
                handles = encodeHandles(entries);
            } catch (JcclException e) {
                problem = e;
            } catch (NetException e) {
                problem = new JcclException(ErrorCode.SYSTEM_ERROR, "rank " + rank + " could not start listening: "
                        + e.getMessage(), e);
            }
        }
        byte[][] allHandles = bootstrap.allGather(handles);
        // A rank that failed before listening sends no handles; it says why in the status round, and connecting
        // to it (or reading its shrink address) would only fail less clearly.
        boolean peerFailedToListen = false;
        for (byte[] h : allHandles) {
            peerFailedToListen |= h.length == 0;
        }
        InetSocketAddress[] shrinkAddresses = new InetSocketAddress[size];
        if (problem == null && !peerFailedToListen) {
            try {
                for (int p = 0; p < size; p++) {
                    shrinkAddresses[p] = ShrinkRendezvous.decode(decodeHandle(allHandles[p], SHRINK_ENTRY, p), p);
                }
            } catch (JcclException e) {
                problem = e;
            }
        }

        // Connect, then round 3: status.
        PeerLinks links = new PeerLinks(size, new ArrayList<>(transports.values()));
        if (problem == null && !peerFailedToListen) {
            try {
                connect(rank, size, config, chosen, transports, listeners, allHandles, links, signal);
            } catch (JcclException e) {
                problem = e;
            } catch (NetException e) {
                problem = new JcclException(ErrorCode.SYSTEM_ERROR, "rank " + rank + " could not connect: "
                        + e.getMessage(), e);
            }
        }
        for (Listener l : listeners.values()) {
            try {
                l.close();
            } catch (RuntimeException ignored) {
                // Best effort.
            }
        }
        BoxAllReduce box = problem == null ? boxAllReduce(rank, size, chosen, transports, links) : null;
        byte[][] statuses = PollingGather.allGather(bootstrap, status(problem, box != null), transports.values(),
                "jccl-init-status-r" + rank);
        if (problem == null) {
            problem = firstPeerFailure(statuses, rank);
        }
        for (byte[] status : statuses) {
            if (status.length < 2 || status[1] != 1) {
                box = null;   // every rank reads every rank's lines, or none uses them
            }
        }
        if (problem != null) {
            if (shrinkListener != null) {
                try {
                    shrinkListener.close();
                } catch (IOException ignored) {
                    // Best effort.
                }
            }
            links.closeAll();
            for (NetTransport t : transports.values()) {
                t.close();
            }
            throw problem;
        }
        ShrinkRendezvous shrink = ShrinkRendezvous.of(shrinkListener, shrinkAddresses,
                bootstrap.communicatorSecret());
        return build(name, rank, size, config, chosen, transports, links, signal, peers, peerNames, shrink,
                directGroup, box);
    }

    /**
     * @return the all-reduce through box lines when this rank maps the box lines of every peer through one
     *         transport (all on this host, shm), else null
     */
    private static BoxAllReduce boxAllReduce(int rank, int size, NetTransportProvider[] chosen,
                                             Map<String, NetTransport> transports, PeerLinks links) {
        if (size < 2) {
            return null;
        }
        String transport = null;
        BoxPeer[] peers = new BoxPeer[size];
        for (int p = 0; p < size; p++) {
            if (p == rank) {
                continue;
            }
            if (chosen[p] == null || links.dataSend[p] == null
                    || (transport != null && !transport.equals(chosen[p].name()))) {
                return null;
            }
            transport = chosen[p].name();
            peers[p] = links.dataSend[p].boxPeer();
            if (peers[p] == null) {
                return null;
            }
        }
        MemorySegment own = transports.get(transport).boxLines();
        return own == null ? null : new BoxAllReduce(rank, own, peers);
    }

    /**
     * Single copy serves an operation only when every peer's connection offers it: the least of their limits, 0 when
     * one has none (another transport, or cross-memory attach refused for that pair).
     */
    static long singleCopyMaxBytes(PeerLinks links, int rank) {
        long least = Long.MAX_VALUE;
        for (int p = 0; p < links.dataSend.length; p++) {
            if (p != rank) {
                least = Math.min(least, links.dataSend[p] == null ? 0 : links.dataSend[p].singleCopyMaxOpBytes());
            }
        }
        return least == Long.MAX_VALUE ? 0 : least;
    }

    /** The largest chunk the tuner picks: larger over a network, where each message has a higher fixed cost. */
    static long maxChunkBytes(boolean networked) {
        return networked ? 1 << 20 : 256 << 10;
    }

    /** Copy bandwidth of one core (a large memcpy on the machines we measured), for ranks that share a JVM. */
    static final double CORE_COPY_BYTES_PER_SECOND = 8e9;

    private static CommImpl build(String name, int rank, int size, CommConfig.Resolved config,
                                  NetTransportProvider[] chosen, Map<String, NetTransport> transports,
                                  PeerLinks links, ExecutorSignal signal, PeerIdentity[] peers,
                                  String[] peerNames, ShrinkRendezvous shrink, DirectGroup directGroup,
                                  BoxAllReduce box) {
        double latencyUs = 0;
        double speedMbps = Double.MAX_VALUE;
        boolean allSignal = true;
        boolean networked = false;
        for (int p = 0; p < size; p++) {
            if (p == rank) {
                continue;
            }
            NetProperties props = transports.get(chosen[p].name()).properties();
            links.transportNames[p] = props.name();
            latencyUs = Math.max(latencyUs, props.latencyUs());
            speedMbps = Math.min(speedMbps, props.speedMbps());
            allSignal &= props.signalsCompletion();
            networked |= !props.name().equals("local");
        }
        if (LOG.isInfoEnabled()) {
            LOG.info("{} {} nranks {} - Init COMPLETE: {}", name, peerNames[rank], size,
                    transportsByPeer(links.transportNames, rank));
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("rank {} of {}: transport per peer {}", rank, size, java.util.Arrays.toString(links.transportNames));
        }
        double bandwidth = speedMbps == Double.MAX_VALUE ? CORE_COPY_BYTES_PER_SECOND : speedMbps * 1e6 / 8;
        // Ranks in one JVM share its cores: each gets at most its share of their copy bandwidth.
        int sameJvm = 0;
        int sameHost = 0;
        for (PeerIdentity p : peers) {
            sameJvm += p.jvmId().equals(peers[rank].jvmId()) ? 1 : 0;
            sameHost += p.hostId().equals(peers[rank].hostId()) ? 1 : 0;
        }
        int availableCores = Runtime.getRuntime().availableProcessors();
        double cores = availableCores;
        double coreShare = CORE_COPY_BYTES_PER_SECOND * Math.min(1.0, cores / Math.max(1, sameJvm));
        bandwidth = Math.min(bandwidth, coreShare);
        long maxChunk = maxChunkBytes(networked);
        long singleCopy = singleCopyMaxBytes(links, rank);
        Tuner tuner = new Tuner(size, Tuner.hopSeconds(latencyUs * 1e-6, allSignal), bandwidth, coreShare, maxChunk,
                config.algorithm(), config.chunkSizeBytes(), singleCopy);
        if (TUNE_LOG.isInfoEnabled()) {
            TUNE_LOG.info("{} rank {}: cost model latency {} us, bandwidth {} MB/s, max chunk {} bytes; algorithm {},"
                    + " chunk {}; single-copy all-reduces up to {} bytes", name, rank, latencyUs,
                    Math.round(bandwidth / 1e6), maxChunk, config.algorithm(),
                    config.chunkSizeBytes() > 0 ? config.chunkSizeBytes() + " bytes" : "by the tuner", singleCopy);
        }
        long slotBytes = config.chunkSizeBytes() > 0 ? config.chunkSizeBytes() : maxChunk;
        Spin spin = Spin.choose(config, sameHost, availableCores);
        if (LOG.isDebugEnabled()) {
            LOG.debug("rank {}: {} ranks on this host, {} cores: spin {} µs within operations, {} µs between, a waiting "
                    + "caller yields {} µs more", rank, sameHost, availableCores, spin.inOpNs() / 1000,
                    spin.idleNs() / 1000, spin.yieldNs() / 1000);
        }
        CommImpl comm = new CommImpl(name, rank, size, config, links, signal, tuner, slotBytes, allSignal, spin,
                peerNames, shrink, SystemNanoClock.INSTANCE, false);
        // Every rank of the group decides alike: one JVM, one configuration, so the same transport to every peer.
        if (directGroup != null && !networked && size > 1 && directGroup.size() == size) {
            comm.executor().joinDirectGroup(directGroup);
            if (TUNE_LOG.isInfoEnabled() && config.algorithm() == Algorithm.AUTO) {
                TUNE_LOG.info("{} rank {}: all-reduce reads the peers' buffers in place (direct)", name, rank);
            }
        }
        if (box != null && directGroup == null) {
            comm.executor().joinBox(box);
            if (TUNE_LOG.isInfoEnabled() && config.algorithm() == Algorithm.AUTO) {
                TUNE_LOG.info("{} rank {}: all-reduces of up to {} bytes go through box lines every rank of the host "
                        + "reads in place", name, rank, BoxAllReduce.PAYLOAD_BYTES);
            }
        }
        comm.start();
        if (networked) {
            warm(comm, config);
        }
        return comm;
    }

    /** Runs the data path before the application does ({@link Warmup}); a failure aborts the communicator. */
    private static void warm(CommImpl comm, CommConfig.Resolved config) {
        try {
            Warmup.Outcome outcome = Warmup.run(comm, config.warmup().toNanos());
            if (LOG.isDebugEnabled()) {
                LOG.debug("{} rank {}: warmed the data path in {} rounds, {} ms", comm.name(), comm.rank(),
                        outcome.rounds(), outcome.elapsedNs() / 1_000_000);
            }
        } catch (RuntimeException e) {
            comm.abort();
            if (e instanceof JcclException je) {
                throw new JcclException(je.code(), "warming the new communicator's data path (" + CommConfig.WARMUP_MS
                        + ") failed: " + je.detail(), je);
            }
            throw e;
        }
    }

    /**
     * The transport to each peer, peers grouped by transport in ranges: {@code local to rank 1, shm to ranks 2-3,
     * metaroce to ranks 4-7}.
     */
    static String transportsByPeer(String[] transportNames, int self) {
        Map<String, List<Integer>> byTransport = new LinkedHashMap<>();
        for (int p = 0; p < transportNames.length; p++) {
            if (p != self) {
                byTransport.computeIfAbsent(String.valueOf(transportNames[p]), k -> new ArrayList<>()).add(p);
            }
        }
        if (byTransport.isEmpty()) {
            return "no peers";
        }
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, List<Integer>> e : byTransport.entrySet()) {
            List<Integer> ranks = e.getValue();
            out.append(out.isEmpty() ? "" : ", ").append(e.getKey())
                    .append(ranks.size() == 1 ? " to rank " : " to ranks ");
            for (int i = 0; i < ranks.size(); ) {
                int j = i;
                while (j + 1 < ranks.size() && ranks.get(j + 1) == ranks.get(j) + 1) {
                    j++;
                }
                out.append(i == 0 ? "" : ",").append(ranks.get(i));
                if (j > i) {
                    out.append('-').append(ranks.get(j));
                }
                i = j + 1;
            }
        }
        return out.toString();
    }

    private static byte[] encodeHandles(Map<String, byte[]> entries) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(entries.size());
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                out.writeUTF(e.getKey());
                byte[] h = e.getValue();
                out.writeInt(h.length);
                out.write(h);
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] decodeHandle(byte[] data, String transport, int peer) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            int n = in.readInt();
            if (n < 0 || n > 64) {
                throw new IOException("bad count " + n);
            }
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                int len = in.readInt();
                if (len < 0 || len > 4096) {
                    throw new IOException("bad handle length " + len);
                }
                byte[] h = in.readNBytes(len);
                if (h.length != len) {
                    throw new IOException("truncated");
                }
                if (name.equals(transport)) {
                    return h;
                }
            }
        } catch (IOException e) {
            throw new JcclException(ErrorCode.REMOTE_ERROR, "rank " + peer + " sent malformed listener handles: "
                    + e.getMessage());
        }
        throw new JcclException(ErrorCode.REMOTE_ERROR, "rank " + peer + " did not listen on transport " + transport);
    }

    /** @return this rank's status for the round after connecting: 0 and whether it maps every peer's box lines */
    private static byte[] status(JcclException problem, boolean boxes) {
        if (problem == null) {
            return new byte[] {0, (byte) (boxes ? 1 : 0)};
        }
        byte[] text = (problem.code() + ": " + problem.detail()).getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[1 + Math.min(text.length, 2000)];
        out[0] = 1;
        System.arraycopy(text, 0, out, 1, out.length - 1);
        return out;
    }

    private static JcclException firstPeerFailure(byte[][] statuses, int rank) {
        for (int p = 0; p < statuses.length; p++) {
            if (p != rank && (statuses[p].length == 0 || statuses[p][0] != 0)) {
                String why = statuses[p].length > 1
                        ? new String(statuses[p], 1, statuses[p].length - 1, StandardCharsets.UTF_8) : "no reason given";
                return new JcclException(ErrorCode.REMOTE_ERROR, "rank " + p
                        + " failed while the communicator was being created: " + why);
            }
        }
        return null;
    }

    /** A connection to a lower rank that waits until that rank's connections here have been accepted. */
    private record DeferredConnect(int index, int peer, NetTransport transport, byte[] handle) {
    }

    /**
     * Opens a data and a control connection to every peer and accepts theirs, all without blocking. Where the
     * transport reuses accepted connections ({@link NetTransport#reusesAcceptedConnections()}: tcp's one socket for
     * both directions), a rank connects to a lower rank only once it accepted both of that rank's connections, so
     * that its connects find them.
     */
    private static void connect(int rank, int size, CommConfig.Resolved config, NetTransportProvider[] chosen,
                                Map<String, NetTransport> transports, Map<String, Listener> listeners,
                                byte[][] allHandles, PeerLinks links, ExecutorSignal signal) {
        long deadline = System.nanoTime() + config.initTimeout().toNanos();
        Arena arena = Arena.ofAuto();
        int peers = size - 1;
        PendingConnect[] pending = new PendingConnect[2 * size];
        SendConnection[] connected = new SendConnection[2 * size];
        NetRequest[] helloSends = new NetRequest[2 * size];
        boolean[] helloSent = new boolean[2 * size];
        MemorySegment helloOut = arena.allocate(2L * size * HELLO_BYTES, 8);
        List<DeferredConnect> deferred = new ArrayList<>();
        for (int p = 0; p < size; p++) {
            if (p == rank) {
                continue;
            }
            NetTransport t = transports.get(chosen[p].name());
            byte[] handle = decodeHandle(allHandles[p], chosen[p].name(), p);
            for (int kind = DATA; kind <= CONTROL; kind++) {
                int i = 2 * p + kind;
                if (p < rank && t.reusesAcceptedConnections()) {
                    deferred.add(new DeferredConnect(i, p, t, handle));
                } else {
                    pending[i] = t.connect(handle, signal);
                }
                long off = (long) i * HELLO_BYTES;
                helloOut.set(ValueLayout.JAVA_INT_UNALIGNED, off, HELLO_MAGIC);
                helloOut.set(ValueLayout.JAVA_INT_UNALIGNED, off + 4, rank);
                helloOut.set(ValueLayout.JAVA_INT_UNALIGNED, off + 8, kind);
            }
        }
        List<Listener> listenerList = new ArrayList<>(listeners.values());
        List<String> listenerNames = new ArrayList<>(listeners.keySet());
        List<RecvConnection> accepted = new ArrayList<>();
        List<String> acceptedVia = new ArrayList<>();
        List<NetRequest> helloRecvs = new ArrayList<>();
        List<MemorySegment> helloIn = new ArrayList<>();
        int expectedAccepts = 2 * peers;
        try {
            loop(rank, size, config, chosen, links, signal, deadline, arena, pending, connected, helloSends,
                    helloSent, helloOut, listenerList, listenerNames, accepted, acceptedVia, helloRecvs, helloIn,
                    expectedAccepts, peers, deferred);
        } catch (RuntimeException e) {
            for (int i = 0; i < connected.length; i++) {
                if (connected[i] != null) {
                    connected[i].close();
                } else if (pending[i] != null) {
                    pending[i].cancel();
                }
            }
            for (RecvConnection c : accepted) {
                c.close();
            }
            throw e;
        }
    }

    @SuppressWarnings("checkstyle:ParameterNumber")
    private static void loop(int rank, int size, CommConfig.Resolved config, NetTransportProvider[] chosen,
                             PeerLinks links, ExecutorSignal signal, long deadline, Arena arena,
                             PendingConnect[] pending, SendConnection[] connected, NetRequest[] helloSends,
                             boolean[] helloSent, MemorySegment helloOut, List<Listener> listenerList,
                             List<String> listenerNames, List<RecvConnection> accepted, List<String> acceptedVia,
                             List<NetRequest> helloRecvs, List<MemorySegment> helloIn, int expectedAccepts,
                             int peers, List<DeferredConnect> deferred) {
        int helloReceived = 0;
        int sent = 0;
        int idle = 0;
        while (sent < 2 * peers || helloReceived < expectedAccepts) {
            boolean progressed = false;
            for (int d = 0; d < deferred.size(); d++) {
                DeferredConnect c = deferred.get(d);
                if (links.dataRecv[c.peer()] != null && links.controlRecv[c.peer()] != null) {
                    pending[c.index()] = c.transport().connect(c.handle(), signal);
                    deferred.remove(d--);
                    progressed = true;
                }
            }
            for (int i = 0; i < 2 * size; i++) {
                if (pending[i] != null && connected[i] == null) {
                    SendConnection c = pending[i].poll();
                    if (c != null) {
                        connected[i] = c;
                        progressed = true;
                    }
                }
                if (connected[i] != null && helloSends[i] == null && !helloSent[i]) {
                    helloSends[i] = connected[i].isend(helloOut, (long) i * HELLO_BYTES, HELLO_BYTES,
                            Fingerprint.HELLO_TAG, null);
                }
                if (helloSends[i] != null && helloSends[i].test() != NetRequest.NOT_DONE) {
                    helloSends[i] = null;
                    helloSent[i] = true;
                    sent++;
                    progressed = true;
                    int p = i / 2;
                    if (i % 2 == DATA) {
                        links.dataSend[p] = connected[i];
                    } else {
                        links.controlSend[p] = connected[i];
                    }
                }
            }
            for (int l = 0; l < listenerList.size(); l++) {
                RecvConnection c;
                while ((c = listenerList.get(l).accept()) != null) {
                    if (accepted.size() >= expectedAccepts) {
                        c.close();
                        throw new JcclException(ErrorCode.REMOTE_ERROR, "rank " + rank
                                + " got more connections than it has peers");
                    }
                    MemorySegment buf = arena.allocate(HELLO_BYTES, 8);
                    accepted.add(c);
                    acceptedVia.add(listenerNames.get(l));
                    helloIn.add(buf);
                    helloRecvs.add(null);
                    progressed = true;
                }
            }
            for (int a = 0; a < accepted.size(); a++) {
                if (helloIn.get(a) == null) {
                    continue;   // done
                }
                if (helloRecvs.get(a) == null) {
                    helloRecvs.set(a, accepted.get(a).irecv(helloIn.get(a), 0, HELLO_BYTES, Fingerprint.HELLO_TAG,
                            null));
                    if (helloRecvs.get(a) == null) {
                        continue;
                    }
                }
                long got = helloRecvs.get(a).test();
                if (got == NetRequest.NOT_DONE) {
                    continue;
                }
                MemorySegment buf = helloIn.get(a);
                int magic = buf.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
                int from = buf.get(ValueLayout.JAVA_INT_UNALIGNED, 4);
                int kind = buf.get(ValueLayout.JAVA_INT_UNALIGNED, 8);
                if (got != HELLO_BYTES || magic != HELLO_MAGIC || from < 0 || from >= size || from == rank
                        || (kind != DATA && kind != CONTROL) || !chosen[from].name().equals(acceptedVia.get(a))) {
                    throw new JcclException(ErrorCode.REMOTE_ERROR, "rank " + rank
                            + " received an invalid connection hello (from rank " + from + ", kind " + kind + ")");
                }
                RecvConnection[] slot = kind == DATA ? links.dataRecv : links.controlRecv;
                if (slot[from] != null) {
                    throw new JcclException(ErrorCode.REMOTE_ERROR, "rank " + from + " connected twice to rank " + rank);
                }
                slot[from] = accepted.get(a);
                helloIn.set(a, null);
                helloRecvs.set(a, null);
                helloReceived++;
                progressed = true;
            }
            if (progressed) {
                idle = 0;
                continue;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new JcclException(ErrorCode.TIMEOUT, "rank " + rank + " timed out after "
                        + config.initTimeout().toMillis() + " ms connecting; no connection yet to ranks "
                        + missing(links.dataSend, links.controlSend, rank) + ", from ranks "
                        + missing(links.dataRecv, links.controlRecv, rank));
            }
            if (++idle < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    private static TreeSet<Integer> missing(Object[] data, Object[] control, int rank) {
        TreeSet<Integer> m = new TreeSet<>();
        for (int p = 0; p < data.length; p++) {
            if (p != rank && (data[p] == null || control[p] == null)) {
                m.add(p);
            }
        }
        return m;
    }
}
