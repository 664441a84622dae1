package io.jccl.cli.bench.loss;

import io.jccl.cli.bench.Json;
import io.jccl.cli.bench.RankProcesses;
import io.jccl.net.Listener;
import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetRequest;
import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportProvider;
import io.jccl.net.PeerIdentity;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;
import io.jccl.net.TransportContext;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * One side of a {@code jccl bench loss} transfer, in its own JVM (started by {@link LossTransfer}, possibly in a
 * network namespace). Both sides create the named transport through the SPI, bound to the address given.
 *
 * <p>The receiver listens, writes its listener handle (hex) to {@value #HANDLE_FILE} in the run's directory and
 * accepts one connection. Both sides then move an unmeasured warm-up ({@code warmupBytes}, the start of the
 * transfer: it brings the JIT, the transport and the link to speed) and then the transfer, each as messages of
 * {@code messageBytes} (message {@code k} has tag {@code k} and lies at offset {@code k * messageBytes} of one
 * buffer holding the whole transfer), with up to {@code inflight} posted on each side. The receiver's clock starts
 * when it posts the transfer's first receive and stops when the last completes; it then checks every byte
 * ({@link BytePattern}) and prints one JSON line {@code {"event":"result","bytes","elapsedNs","wrongBytes",
 * "firstWrong"}}, having printed {@code {"event":"progress","deliveredBytes","elapsedNs"}} lines every
 * {@value #PROGRESS_MS} ms before, and creates {@value #DONE_FILE}. The sender fills its buffer, waits for the
 * handle, connects and sends the warm-up (testing every pending send until it completes); it sends the transfer only
 * once the receiver's clock runs (the receiver creates {@value #GO_FILE} after posting its first receives), then
 * waits for {@value #DONE_FILE} before closing: a send may complete before the transport delivered it, and a sender
 * that closed at once could take the last of the data with it.
 *
 * <p>Arguments: {@code receive|send transport bindAddress bytes messageBytes inflight seed warmupBytes
 * runDirectory timeoutSeconds}. Exit status 0 on success (for the receiver: every byte right), 1 on a failure, reported on
 * standard error as a line starting with {@value #FAILED_PREFIX}; 2 when the receiver found wrong bytes. A side halts
 * with status 3 if its parent process exits first.
 */
public final class LossBenchRank {
    /** The file in the run directory holding the receiver's listener handle. */
    public static final String HANDLE_FILE = "handle.hex";
    /** The file the receiver creates once it has posted the transfer's first receives (its clock runs). */
    public static final String GO_FILE = "go";
    /** The file the receiver creates once it has every byte. */
    public static final String DONE_FILE = "done";
    /** Starts the line on standard error that says why a side failed. */
    public static final String FAILED_PREFIX = "jccl-bench-loss failed: ";
    /** Milliseconds between the receiver's progress lines. */
    public static final long PROGRESS_MS = 500;

    private LossBenchRank() {
    }

    /**
     * Runs one side and exits.
     *
     * @param args see the class comment
     */
    public static void main(String[] args) {
        RankProcesses.runChild(args, LossBenchRank::run, FAILED_PREFIX);
    }

    private record Args(boolean receiver, String transport, InetAddress bind, long bytes, long messageBytes,
                        int inflight, long seed, long warmupBytes, Path dir, long deadlineNs, Duration timeout) {
        int warmupMessages() {
            return (int) ((warmupBytes + messageBytes - 1) / messageBytes);
        }
    }

    private static int run(String[] a) throws IOException, InterruptedException {
        if (a.length != 10 || !(a[0].equals("receive") || a[0].equals("send"))) {
            throw new IllegalArgumentException("usage: LossBenchRank receive|send transport bindAddress bytes "
                    + "messageBytes inflight seed warmupBytes runDirectory timeoutSeconds");
        }
        long timeoutSeconds = Long.parseLong(a[9]);
        long bytes = Long.parseLong(a[3]);
        Args args = new Args(a[0].equals("receive"), a[1], InetAddress.ofLiteral(a[2]), bytes,
                Long.parseLong(a[4]), Integer.parseInt(a[5]), Long.parseLong(a[6]),
                Math.min(bytes, Long.parseLong(a[7])), Path.of(a[8]),
                System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds), Duration.ofSeconds(timeoutSeconds));
        int side = args.receiver() ? LossLink.RECEIVER : LossLink.SENDER;
        try (NetTransport transport = create(args, side); Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(args.bytes(), 4096);
            return args.receiver() ? receive(args, transport, buffer) : send(args, transport, buffer);
        }
    }

    /** Creates the named transport through the SPI, bound to the side's address, with this JVM's JCCL_* settings. */
    private static NetTransport create(Args args, int side) {
        List<String> names = new ArrayList<>();
        for (NetTransportProvider p : ServiceLoader.load(NetTransportProvider.class)) {
            if (p.name().equals(args.transport())) {
                return p.create(new TransportContext(new PeerIdentity(side, "jccl-bench-loss-side-" + side,
                        "jccl-bench-loss-" + ProcessHandle.current().pid()), 2, args.bind(), args.timeout(),
                        System.getenv()));
            }
            names.add(p.name());
        }
        throw new IllegalArgumentException("no transport named '" + args.transport() + "' on the class path "
                + "(available: " + String.join(", ", names) + ")");
    }

    private static int receive(Args args, NetTransport transport, MemorySegment buffer)
            throws IOException, InterruptedException {
        MemoryRegistration mr = transport.register(buffer);
        try (RecvConnection recv = accept(args, transport)) {
            Post post = (off, len, tag) -> recv.irecv(buffer, off, len, tag, mr);
            stream(args, args.warmupBytes(), 0, post, (delivered, ns) -> { }, () -> { }, "receiving the warm-up");
            long startNs = System.nanoTime();
            Path go = args.dir().resolve(GO_FILE);
            stream(args, args.bytes(), args.warmupMessages(), post, (delivered, ns) -> System.out.println(new Json()
                    .beginObject().field("event", "progress").field("deliveredBytes", delivered)
                    .field("elapsedNs", ns).endObject()), () -> Files.writeString(go, ""), "receiving");
            long elapsedNs = System.nanoTime() - startNs;
            long[] check = BytePattern.check(buffer, args.seed());
            System.out.println(new Json().beginObject().field("event", "result").field("bytes", args.bytes())
                    .field("elapsedNs", elapsedNs).field("wrongBytes", check[0]).field("firstWrong", check[1])
                    .endObject());
            System.out.flush();
            Files.writeString(args.dir().resolve(DONE_FILE), "");
            transport.deregister(mr);
            return check[0] == 0 ? 0 : 2;
        }
    }

    private static int send(Args args, NetTransport transport, MemorySegment buffer)
            throws IOException, InterruptedException {
        BytePattern.fill(buffer, args.seed());
        MemoryRegistration mr = transport.register(buffer);
        Path handleFile = args.dir().resolve(HANDLE_FILE);
        while (!Files.exists(handleFile)) {
            checkDeadline(args, "waiting for the receiver's handle");
            Thread.sleep(2);
        }
        byte[] handle;
        try {
            handle = HexFormat.of().parseHex(Files.readString(handleFile).strip());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the receiver's handle " + handleFile, e);
        }
        try (SendConnection send = connect(args, transport, handle)) {
            Post post = (off, len, tag) -> send.isend(buffer, off, len, tag, mr);
            stream(args, args.warmupBytes(), 0, post, (sent, ns) -> { }, () -> { }, "sending the warm-up");
            // Not a byte of the transfer before the receiver's clock runs: a transport that buffers sends (TCP's
            // socket buffers, Aeron's log) would otherwise carry megabytes of it untimed.
            Path go = args.dir().resolve(GO_FILE);
            while (!Files.exists(go)) {
                checkDeadline(args, "waiting for the receiver to finish the warm-up");
                Thread.onSpinWait();
                LockSupport.parkNanos(20_000);
            }
            stream(args, args.bytes(), args.warmupMessages(), post, (sent, ns) -> { }, () -> { }, "sending");
            Path doneFile = args.dir().resolve(DONE_FILE);
            while (!Files.exists(doneFile)) {
                checkDeadline(args, "waiting for the receiver to get the last bytes");
                Thread.sleep(2);
            }
            transport.deregister(mr);
            return 0;
        }
    }

    /** Posts one message: a send or a receive of {@code len} bytes at {@code off} in the buffer, tagged. */
    private interface Post {
        NetRequest post(long off, long len, long tag);
    }

    /** Runs once the stream's first requests are posted. */
    private interface Posted {
        void run() throws IOException;
    }

    /** Told the bytes completed so far and the nanoseconds since the stream began. */
    private interface Progress {
        void report(long bytes, long elapsedNs);
    }

    /**
     * Moves the first {@code bytes} of the buffer as messages of {@code messageBytes} (tags from {@code firstTag}),
     * keeping up to {@code inflight} posted and testing every pending one until all completed; each completion must
     * carry its message's length. Every {@value #PROGRESS_MS} ms it reports progress and checks the deadline.
     */
    private static void stream(Args args, long bytes, int firstTag, Post post, Progress progress, Posted posted,
                               String doing) throws IOException {
        int n = (int) ((bytes + args.messageBytes() - 1) / args.messageBytes());
        NetRequest[] pending = new NetRequest[n];
        int count = 0;
        int done = 0;
        long completed = 0;
        boolean told = false;
        long startNs = System.nanoTime();
        long nextReportNs = startNs + TimeUnit.MILLISECONDS.toNanos(PROGRESS_MS);
        IdleStrategy idle = idleStrategy();
        while (done < n) {
            int work = 0;
            while (count < n && count - done < args.inflight()) {
                long off = (long) count * args.messageBytes();
                NetRequest r = post.post(off, Math.min(args.messageBytes(), bytes - off), firstTag + count);
                if (r == null) {
                    break;   // the transport's own limit of requests in flight
                }
                pending[count++] = r;
                work++;
            }
            if (!told && count > 0) {
                posted.run();
                told = true;
            }
            for (int k = done; k < count; k++) {
                if (pending[k] != null) {
                    long got = pending[k].test();
                    if (got != NetRequest.NOT_DONE) {
                        long expected = Math.min(args.messageBytes(), bytes - (long) k * args.messageBytes());
                        if (got != expected) {
                            throw new IllegalStateException(doing + ": message " + (firstTag + k) + " completed with "
                                    + got + " bytes, expected " + expected);
                        }
                        pending[k] = null;
                        completed += got;
                        work++;
                    }
                }
            }
            while (done < count && pending[done] == null) {
                done++;
            }
            idle.idle(work);
            long now = System.nanoTime();
            if (now - nextReportNs >= 0) {
                progress.report(completed, now - startNs);
                nextReportNs = now + TimeUnit.MILLISECONDS.toNanos(PROGRESS_MS);
                checkDeadline(args, doing + " (" + completed + " of " + bytes + " bytes done)");
            }
        }
    }

    /** Publishes the listener's handle in the run directory and waits for the sender's connection. */
    private static RecvConnection accept(Args args, NetTransport transport) throws IOException, InterruptedException {
        try (Listener listener = transport.listen(ProgressSignal.NONE)) {
            Path tmp = args.dir().resolve(HANDLE_FILE + ".tmp");
            Files.writeString(tmp, HexFormat.of().formatHex(listener.handle()));
            Files.move(tmp, args.dir().resolve(HANDLE_FILE), StandardCopyOption.ATOMIC_MOVE);
            return await(args, "waiting for the sender to connect", listener::accept);
        }
    }

    private static SendConnection connect(Args args, NetTransport transport, byte[] handle)
            throws InterruptedException {
        PendingConnect connecting = transport.connect(handle, ProgressSignal.NONE);
        return await(args, "connecting to the receiver", connecting::poll);
    }

    /**
     * Spin, yield, then park up to 50 us between polls that found nothing: the two sides, their transports' threads
     * and a user-space relay share the machine's cores, and a side spinning flat out would slow the others.
     */
    private static IdleStrategy idleStrategy() {
        return new BackoffIdleStrategy(100, 10, 1_000, 50_000);
    }

    /** @return the first non-null result of {@code attempt}, tried every millisecond until the run's deadline */
    private static <T> T await(Args args, String doing, Supplier<T> attempt) throws InterruptedException {
        T result = attempt.get();
        while (result == null) {
            checkDeadline(args, doing);
            Thread.sleep(1);
            result = attempt.get();
        }
        return result;
    }

    private static void checkDeadline(Args args, String doing) {
        if (System.nanoTime() - args.deadlineNs() > 0) {
            throw new IllegalStateException("timed out after " + args.timeout().toSeconds() + " s " + doing);
        }
    }
}
