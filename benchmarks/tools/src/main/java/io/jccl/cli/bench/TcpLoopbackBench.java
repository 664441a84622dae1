package io.jccl.cli.bench;

import io.jccl.net.Listener;
import io.jccl.net.NetRequest;
import io.jccl.net.NetTransport;
import io.jccl.net.PeerIdentity;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;
import io.jccl.net.TransportContext;
import io.jccl.net.tcp.TcpNetTransportProvider;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Point-to-point runs over loopback TCP in this JVM, one busy-polling thread per side, for {@code jccl bench tcp}:
 * the {@code tcp} transport streaming messages through one connection, and the ceiling it is measured against,
 * a raw blast of the same bytes through plain non-blocking {@link SocketChannel}s with the same socket options
 * and the same number of sockets (each message split into one contiguous stripe per socket, no framing, no
 * matching). Every run checks the bytes of its last message.
 *
 * <p>With {@code oneThread}, the calling thread drives both ends in turn and the result is per second of its CPU
 * time (user and system, so the kernel's loopback work on both sides counts): the cost of moving the bytes,
 * which other load on the machine barely changes, where wall-clock bandwidth with two threads swings with how
 * the scheduler treats them.
 */
final class TcpLoopbackBench {
    /** Longest a single run may take before it fails instead of hanging. */
    private static final long LIMIT_SECONDS = 300;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private TcpLoopbackBench() {
    }

    /**
     * Streams {@code messages} messages of {@code messageBytes} through one {@code tcp} connection, keeping up to
     * {@code window} sends and as many receives posted.
     *
     * @param options   the transport options (JCCL_SOCKET_NSOCKS and friends)
     * @param oneThread drive both ends from the calling thread and measure its CPU time instead of wall time
     * @return payload bytes per second, from the first post to the last receive's completion; or, with
     *         {@code oneThread}, per second of the driving thread's CPU time
     */
    static double transport(Map<String, String> options, long messageBytes, long messages, int window,
                            boolean oneThread) {
        try (Arena arena = Arena.ofShared(); NetTransport a = create(0, options); NetTransport b = create(1, options)) {
            MemorySegment src = patterned(arena.allocate(Math.max(1, messageBytes), 4096), messageBytes);
            MemorySegment dst = arena.allocate(Math.max(1, messageBytes), 4096);
            Link link = connect(a, b);
            double seconds = drive(new Stream(messages, window, i -> link.send().isend(src, 0, messageBytes, i, null)),
                    new Stream(messages, window, i -> link.recv().irecv(dst, 0, messageBytes, i, null)), oneThread,
                    "the transfer");
            check(src, dst, messageBytes);
            link.send().close();
            link.recv().close();
            return messageBytes * (double) messages / seconds;
        }
    }

    /**
     * Small-message ping-pong over two {@code tcp} connections (one each way).
     *
     * @return the median round trip in nanoseconds
     */
    static long pingPongNanos(Map<String, String> options, int bytes, int warmupRounds, int rounds) {
        try (Arena arena = Arena.ofShared(); NetTransport a = create(0, options); NetTransport b = create(1, options)) {
            Link ab = connect(a, b);
            Link ba = connect(b, a);
            MemorySegment ping = arena.allocate(bytes);
            MemorySegment pong = arena.allocate(bytes);
            int total = warmupRounds + rounds;
            CompletableFuture<Long> echo = CompletableFuture.supplyAsync(() -> {
                for (int round = 0; round < total; round++) {
                    poll(ab.recv().irecv(pong, 0, bytes, round, null));
                    poll(ba.send().isend(pong, 0, bytes, round, null));
                }
                return 0L;
            }, TcpLoopbackBench::platformThread);
            long[] roundTrips = new long[rounds];
            for (int round = 0; round < total; round++) {
                long t0 = System.nanoTime();
                NetRequest send = ab.send().isend(ping, 0, bytes, round, null);
                NetRequest recv = ba.recv().irecv(ping, 0, bytes, round, null);
                poll(send);
                poll(recv);
                if (round >= warmupRounds) {
                    roundTrips[round - warmupRounds] = System.nanoTime() - t0;
                }
            }
            join(echo);
            Arrays.sort(roundTrips);
            return roundTrips[rounds / 2];
        }
    }

    /**
     * The ceiling: the same bytes through {@code sockets} plain non-blocking socket channels, each message split
     * into one contiguous stripe per socket (as the transport stripes), written and read by one busy-polling
     * thread per side, without headers or matching.
     *
     * @param socketBufferBytes SO_SNDBUF/SO_RCVBUF, or 0 for the kernel's defaults
     * @param oneThread         write and read from the calling thread and measure its CPU time instead of wall time
     * @return payload bytes per second, from the first write to the last read; or, with {@code oneThread}, per
     *         second of the thread's CPU time
     */
    static double raw(int sockets, long messageBytes, long messages, int socketBufferBytes, boolean oneThread) {
        try (Arena arena = Arena.ofShared(); ServerSocketChannel server = ServerSocketChannel.open()) {
            if (socketBufferBytes > 0) {
                server.setOption(StandardSocketOptions.SO_RCVBUF, socketBufferBytes);
            }
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel[] out = new SocketChannel[sockets];
            SocketChannel[] in = new SocketChannel[sockets];
            try {
                for (int s = 0; s < sockets; s++) {
                    out[s] = SocketChannel.open();
                    tune(out[s], socketBufferBytes);
                    out[s].connect(server.getLocalAddress());
                    in[s] = server.accept();
                    tune(in[s], socketBufferBytes);
                    out[s].configureBlocking(false);
                    in[s].configureBlocking(false);
                }
                MemorySegment src = patterned(arena.allocate(Math.max(1, messageBytes), 4096), messageBytes);
                MemorySegment dst = arena.allocate(Math.max(1, messageBytes), 4096);
                double seconds = drive(new Blast(out, src, messageBytes, messages, true),
                        new Blast(in, dst, messageBytes, messages, false), oneThread, "the raw blast");
                check(src, dst, messageBytes);
                return messageBytes * (double) messages / seconds;
            } finally {
                for (int s = 0; s < sockets; s++) {
                    closeQuietly(out[s]);
                    closeQuietly(in[s]);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("raw socket blast failed: " + e.getMessage(), e);
        }
    }

    /** One side of the raw blast: {@code messages} rounds of each socket's stripe, the sockets visited in turn. */
    private static final class Blast implements End {
        private final SocketChannel[] channels;
        private final ByteBuffer[] views;
        private final long[] round;
        private final long messages;
        private final boolean write;
        private int busy;

        Blast(SocketChannel[] channels, MemorySegment buffer, long messageBytes, long messages, boolean write) {
            int n = channels.length;
            this.channels = channels;
            this.views = new ByteBuffer[n];
            this.round = new long[n];
            this.messages = messages;
            this.write = write;
            long stripe = Math.max(1, (messageBytes + n - 1) / n);
            for (int s = 0; s < n; s++) {
                long from = Math.min(messageBytes, s * stripe);
                long bytes = Math.min(messageBytes, from + stripe) - from;
                views[s] = bytes == 0 ? null : buffer.asSlice(from, bytes).asByteBuffer();
                busy += bytes == 0 ? 0 : 1;
            }
        }

        /** @return true once every socket has moved all its rounds */
        @Override
        public boolean step() {
            try {
                for (int s = 0; s < channels.length; s++) {
                    if (views[s] == null || round[s] == messages) {
                        continue;
                    }
                    int moved = write ? channels[s].write(views[s]) : channels[s].read(views[s]);
                    if (moved < 0) {
                        throw new IllegalStateException("the raw blast's peer closed a socket");
                    }
                    if (!views[s].hasRemaining()) {
                        views[s].clear();
                        if (++round[s] == messages) {
                            busy--;
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return busy == 0;
        }
    }

    private static void tune(SocketChannel channel, int socketBufferBytes) throws IOException {
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        if (socketBufferBytes > 0) {
            channel.setOption(StandardSocketOptions.SO_SNDBUF, socketBufferBytes);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, socketBufferBytes);
        }
    }

    private record Link(SendConnection send, RecvConnection recv) {
    }

    private static NetTransport create(int rank, Map<String, String> options) {
        return new TcpNetTransportProvider().create(new TransportContext(new PeerIdentity(rank, "bench", "jvm-" + rank),
                2, InetAddress.getLoopbackAddress(), Duration.ofSeconds(30), options));
    }

    private static Link connect(NetTransport from, NetTransport to) {
        Listener listener = to.listen(ProgressSignal.NONE);
        try {
            PendingConnect pending = from.connect(listener.handle(), ProgressSignal.NONE);
            SendConnection send = null;
            RecvConnection recv = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
            while (send == null || recv == null) {
                if (send == null) {
                    send = pending.poll();
                }
                if (recv == null) {
                    recv = listener.accept();
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("connecting took longer than " + LIMIT_SECONDS + " s");
                }
            }
            return new Link(send, recv);
        } finally {
            listener.close();
        }
    }

    private interface Post {
        NetRequest post(long i);
    }

    /** Posts {@code messages} requests keeping up to {@code window} in flight, and polls them to completion. */
    /** One end of a transfer, moved on by polling. */
    private interface End {
        /** @return true once this end has moved everything */
        boolean step();
    }

    /**
     * Runs a transfer to its end: both ends from this thread, timed by its CPU time ({@code oneThread}), or each end
     * on a thread of its own, timed by the wall clock from the sender's start to the receiver's end.
     *
     * @return the seconds it took
     */
    private static double drive(End sender, End receiver, boolean oneThread, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        if (oneThread) {
            long cpu0 = THREADS.getCurrentThreadCpuTime();
            for (long spins = 0; !(sender.step() & receiver.step()); spins++) {
                checkDeadline(spins, deadline, what);
            }
            return (THREADS.getCurrentThreadCpuTime() - cpu0) / 1e9;
        }
        CyclicBarrier start = new CyclicBarrier(2);
        CompletableFuture<Long> received = CompletableFuture.supplyAsync(() -> {
            await(start);
            finish(receiver, deadline, what);
            return System.nanoTime();
        }, TcpLoopbackBench::platformThread);
        await(start);
        long t0 = System.nanoTime();
        finish(sender, deadline, what);
        return (join(received) - t0) / 1e9;
    }

    private static void finish(End end, long deadline, String what) {
        for (long spins = 0; !end.step(); spins++) {
            checkDeadline(spins, deadline, what);
        }
    }

    /** Requests posted with up to {@code window} in flight and polled to completion, a pass at a time. */
    private static final class Stream implements End {
        private final NetRequest[] slots;
        private final long messages;
        private final Post post;
        private long posted;
        private long completed;

        Stream(long messages, int window, Post post) {
            this.slots = new NetRequest[window];
            this.messages = messages;
            this.post = post;
        }

        /** @return true once every request completed */
        @Override
        public boolean step() {
            for (int slot = 0; slot < slots.length; slot++) {
                if (slots[slot] == null && posted < messages) {
                    slots[slot] = post.post(posted);
                    if (slots[slot] != null) {
                        posted++;
                    }
                }
                if (slots[slot] != null && slots[slot].test() != NetRequest.NOT_DONE) {
                    slots[slot] = null;
                    completed++;
                }
            }
            return completed == messages;
        }
    }

    private static void checkDeadline(long spins, long deadline, String what) {
        if ((spins & 0xFFFF) == 0 && System.nanoTime() - deadline > 0) {
            throw new IllegalStateException(what + " took longer than " + LIMIT_SECONDS + " s");
        }
    }

    private static void poll(NetRequest request) {
        while (request.test() == NetRequest.NOT_DONE) {
            Thread.onSpinWait();
        }
    }

    private static MemorySegment patterned(MemorySegment segment, long bytes) {
        for (long i = 0; i + 8 <= bytes; i += 8) {
            segment.set(ValueLayout.JAVA_LONG_UNALIGNED, i, (i + 1) * 0x9E3779B97F4A7C15L);
        }
        for (long i = bytes & ~7L; i < bytes; i++) {
            segment.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        return segment;
    }

    private static void check(MemorySegment src, MemorySegment dst, long bytes) {
        long differs = src.asSlice(0, bytes).mismatch(dst.asSlice(0, bytes));
        if (differs >= 0) {
            throw new IllegalStateException("the last message arrived wrong at byte " + differs);
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(LIMIT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the other side did not start: " + e, e);
        }
    }

    private static long join(CompletableFuture<Long> side) {
        try {
            return side.get(LIMIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new IllegalStateException("the other side did not finish: " + e, e);
        }
    }

    /** Runs each side on a platform thread of its own (the common pool may have a single thread on 2 cores). */
    private static void platformThread(Runnable task) {
        Thread.ofPlatform().daemon().name("jccl-bench-tcp").start(task);
    }

    private static void closeQuietly(SocketChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // the run is over
            }
        }
    }
}
