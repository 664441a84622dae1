package io.jccl.bootstrap;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.UniqueId;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import org.slf4j.Logger;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A rank's side of a TCP rendezvous: connects to the {@link RendezvousServer} named by a {@link UniqueId},
 * authenticates, joins as one rank and then exchanges data in all-gather rounds.
 *
 * <p>Every wait is bounded by the timeout given to {@link #join}: joining (connection attempts are retried with
 * backoff until then, since the rank that created the id may start later) and each {@link #allGather} round.
 * When a round times out, the bootstrap asks the rendezvous which ranks it still lacks and names them in the
 * TIMEOUT error. Any failure leaves the bootstrap unusable; the rendezvous then fails for the other ranks too.
 *
 * <p>{@link #allGather} is for one thread at a time (calls are serialised); {@link #close} may come from any
 * thread and makes a waiting call fail with ABORTED.
 */
public final class TcpBootstrap implements Bootstrap {
    private static final Logger LOG = JcclLog.logger(Subsystem.BOOTSTRAP, TcpBootstrap.class);
    private static final long FIRST_BACKOFF_MS = 10;
    private static final long MAX_BACKOFF_MS = 1000;
    private static final long MAX_CONNECT_ATTEMPT_MS = 5000;
    /** How long to wait for the rendezvous to say who is missing, after a round has timed out. */
    private static final long STATUS_GRACE_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long REASON_GRACE_NS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final long GOODBYE_LINGER_NS = TimeUnit.MILLISECONDS.toNanos(500);

    private final FrameChannel channel;
    private final int rank;
    private final int size;
    private final long timeoutNs;
    private final String where;
    private final byte[] communicatorSecret;
    private final ReentrantLock callLock = new ReentrantLock();
    private final AtomicBoolean closed = new AtomicBoolean();
    private int round;
    private JcclException failure;

    private TcpBootstrap(FrameChannel channel, int rank, int size, long timeoutNs, String where,
                         byte[] communicatorSecret) {
        this.communicatorSecret = communicatorSecret;
        this.channel = channel;
        this.rank = rank;
        this.size = size;
        this.timeoutNs = timeoutNs;
        this.where = where;
    }

    /**
     * Joins the rendezvous of {@code id} as {@code rank} of {@code size}.
     *
     * @param id      the unique id the rank that created it shared
     * @param rank    this rank, in [0, size)
     * @param size    the number of ranks, at least 1; all ranks must agree
     * @param timeout bounds joining and, separately, every all-gather round
     * @return the joined bootstrap
     * @throws JcclException INVALID_ARGUMENT for bad arguments; TIMEOUT when the rendezvous could not be reached
     *                       or did not answer in time; REMOTE_ERROR when it refused this rank (with its reason)
     *                       or could not prove it knows the secret; SYSTEM_ERROR on I/O failure
     */
    public static TcpBootstrap join(UniqueId id, int rank, int size, Duration timeout) {
        if (id == null) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "unique id is null");
        }
        if (size < 1) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "size " + size + " must be at least 1");
        }
        if (rank < 0 || rank >= size) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "rank " + rank + " is out of range [0, " + size + ")");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "timeout " + timeout + " must be positive");
        }
        long timeoutNs = Durations.saturatedNanos(timeout);
        long deadlineNs = deadline(timeoutNs);
        InetSocketAddress address = id.address();
        String where = SocketAddresses.format(address);
        Socket socket = connect(address, where, rank, timeout, deadlineNs);
        FrameChannel channel;
        try {
            channel = new FrameChannel(socket);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "cannot use the connection to the rendezvous " + where
                    + ": " + e.getMessage(), e);
        }
        byte[] secret = id.secretBytes();
        byte[] communicatorSecret = RendezvousProtocol.deriveSecret(secret, "communicator");
        try {
            Handshake.client(channel, secret, rank, size, deadlineNs);
        } catch (RefusedException e) {
            channel.close();
            String hint = e.getMessage().startsWith("authentication failed") ? " — is the unique id right?" : "";
            throw new JcclException(ErrorCode.REMOTE_ERROR, "the rendezvous " + where + " refused rank " + rank
                    + " of " + size + ": " + e.getMessage() + hint);
        } catch (FrameTimeoutException e) {
            channel.close();
            throw new JcclException(ErrorCode.TIMEOUT, "rank " + rank + " waited " + Durations.describe(timeout)
                    + " for the rendezvous " + where + " to answer its handshake");
        } catch (ProtocolException e) {
            channel.close();
            throw new JcclException(ErrorCode.REMOTE_ERROR, "rank " + rank + " cannot join the rendezvous " + where
                    + ": " + e.getMessage(), e);
        } catch (IOException e) {
            channel.close();
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "rank " + rank + " lost its connection to the rendezvous "
                    + where + " during the handshake: " + describe(e), e);
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
        LOG.debug("rank {} of {} joined the rendezvous {}", rank, size, where);
        return new TcpBootstrap(channel, rank, size, timeoutNs, where, communicatorSecret);
    }

    @Override
    public byte[] communicatorSecret() {
        return communicatorSecret.clone();
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public byte[][] allGather(byte[] mine) {
        if (mine == null) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "the all-gather contribution is null");
        }
        if (mine.length > RendezvousProtocol.MAX_PAYLOAD_BYTES) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "the all-gather contribution of " + mine.length
                    + " bytes exceeds the limit of " + RendezvousProtocol.MAX_PAYLOAD_BYTES + " bytes (16 MiB)");
        }
        callLock.lock();
        try {
            if (closed.get()) {
                throw new JcclException(ErrorCode.INVALID_USAGE, "the bootstrap of rank " + rank + " is closed");
            }
            if (failure != null) {
                throw new JcclException(failure.code(), "an earlier rendezvous call of rank " + rank + " failed: "
                        + failure.detail(), failure);
            }
            byte[][] table = gather(mine);
            round++;
            return table;
        } catch (JcclException e) {
            if (e.code() != ErrorCode.INVALID_USAGE && failure == null) {
                JcclException reported = closed.get() ? new JcclException(ErrorCode.ABORTED, "the bootstrap of rank "
                        + rank + " was closed during all-gather round " + round, e) : e;
                failure = reported;
                if (reported.code() == ErrorCode.TIMEOUT) {
                    tellTheRendezvous(reported.detail());
                }
                channel.close();
                throw reported;
            }
            throw e;
        } finally {
            callLock.unlock();
        }
    }

    /**
     * Leaves the rendezvous: says goodbye unless a call failed, and closes the connection. When a call is waiting
     * in another thread, closes the connection at once instead, so that the call fails with ABORTED (and the
     * rendezvous with it). Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (!callLock.tryLock()) {
            channel.close();
            return;
        }
        try {
            if (failure == null) {
                sayGoodbye();
            }
            channel.close();
        } finally {
            callLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "TcpBootstrap[rank " + rank + " of " + size + ", rendezvous " + where + "]";
    }

    private byte[][] gather(byte[] mine) {
        long deadlineNs = deadline(timeoutNs);
        byte[][] table = new byte[size][];
        int next = 0;
        boolean asked = false;
        try {
            sendContribution(mine);
            while (next < size) {
                Frame frame;
                try {
                    frame = channel.receive(deadlineNs);
                } catch (FrameTimeoutException e) {
                    if (asked || !e.atFrameBoundary()) {
                        throw timedOut(null, next);
                    }
                    channel.send(RendezvousProtocol.QUERY, RendezvousProtocol.ints(round));
                    asked = true;
                    deadlineNs = System.nanoTime() + Math.min(STATUS_GRACE_NS, timeoutNs);
                    continue;
                }
                switch (frame.type()) {
                    case RendezvousProtocol.ENTRY -> {
                        int entryRound = frame.intAt(0);
                        int entryRank = frame.intAt(4);
                        if (entryRound != round || entryRank != next) {
                            throw protocolError("the rendezvous sent rank " + entryRank + " of round " + entryRound
                                    + " where rank " + next + " of round " + round + " was due");
                        }
                        table[next++] = Arrays.copyOfRange(frame.body(), 8, frame.body().length);
                    }
                    case RendezvousProtocol.STATUS -> {
                        if (!asked) {
                            throw protocolError("the rendezvous sent a STATUS frame nobody asked for");
                        }
                        throw timedOut(frame, next);
                    }
                    case RendezvousProtocol.ERROR -> throw new JcclException(ErrorCode.REMOTE_ERROR,
                            "the rendezvous " + where + " failed during all-gather round " + round + " (rank " + rank
                                    + "): " + RendezvousProtocol.reasonText(frame.body()));
                    case RendezvousProtocol.REFUSE -> throw new JcclException(ErrorCode.REMOTE_ERROR,
                            "the rendezvous " + where + " refused rank " + rank + ": "
                                    + RendezvousProtocol.reasonText(frame.body()));
                    default -> throw protocolError("the rendezvous sent an unexpected "
                            + RendezvousProtocol.typeName(frame.type()) + " frame");
                }
            }
            return table;
        } catch (ProtocolException e) {
            throw protocolError(e.getMessage());
        } catch (EOFException e) {
            throw new JcclException(ErrorCode.REMOTE_ERROR, "the rendezvous " + where + " closed the connection of"
                    + " rank " + rank + " during all-gather round " + round, e);
        } catch (IOException e) {
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "rank " + rank + " lost its connection to the rendezvous "
                    + where + " during all-gather round " + round + ": " + describe(e), e);
        }
    }

    /**
     * Sends this rank's contribution. When that fails because the rendezvous has already failed and closed the
     * connection, the reason it sent first is likely still readable: report that rather than the broken pipe.
     */
    private void sendContribution(byte[] mine) throws IOException {
        try {
            channel.send(RendezvousProtocol.CONTRIBUTE, RendezvousProtocol.ints(round), mine);
        } catch (IOException sendFailure) {
            try {
                Frame frame = channel.receive(System.nanoTime() + REASON_GRACE_NS);
                if (frame.type() == RendezvousProtocol.ERROR) {
                    throw new JcclException(ErrorCode.REMOTE_ERROR, "the rendezvous " + where + " failed during"
                            + " all-gather round " + round + " (rank " + rank + "): "
                            + RendezvousProtocol.reasonText(frame.body()), sendFailure);
                }
            } catch (IOException ignored) {
                // nothing readable: report the send failure itself
            }
            throw sendFailure;
        }
    }

    private JcclException timedOut(Frame status, int received) {
        String waitedFor;
        if (status != null && status.intAt(0) == round && status.intAt(4) > 0) {
            ByteBuffer body = ByteBuffer.wrap(status.body(), 8, status.body().length - 8);
            List<Integer> ranks = new ArrayList<>();
            while (body.remaining() >= 4) {
                ranks.add(body.getInt());
            }
            int total = status.intAt(4);
            waitedFor = (total == 1 ? "rank " : "ranks ") + ranks
                    + (total > ranks.size() ? " and " + (total - ranks.size()) + " more" : "");
        } else if (received > 0) {
            waitedFor = "the rest of the result (" + received + " of " + size + " entries arrived)";
        } else {
            waitedFor = "the other ranks (the rendezvous did not say which are missing)";
        }
        return new JcclException(ErrorCode.TIMEOUT, "rank " + rank + " waited " + Durations.describe(timeoutNs)
                + " at the rendezvous " + where + " for " + waitedFor + " in all-gather round " + round);
    }

    private JcclException protocolError(String message) {
        return new JcclException(ErrorCode.REMOTE_ERROR, "rank " + rank + ": the rendezvous " + where
                + " broke the protocol in all-gather round " + round + ": " + message);
    }

    /** Best effort: lets the rendezvous tell the other ranks why this one leaves. */
    private void tellTheRendezvous(String reason) {
        try {
            channel.send(RendezvousProtocol.ABORT, RendezvousProtocol.reason(reason));
        } catch (IOException | RuntimeException e) {
            LOG.debug("rank {}: could not tell the rendezvous {} why it leaves: {}", rank, where, e.getMessage());
        }
    }

    private void sayGoodbye() {
        try {
            channel.send(RendezvousProtocol.BYE);
            channel.shutdownOutput();
            // Wait briefly for the server to close its end, so closing ours cannot reset the connection before
            // the server has read the goodbye.
            channel.drain(1 << 16, System.nanoTime() + GOODBYE_LINGER_NS);
        } catch (IOException | RuntimeException e) {
            LOG.debug("rank {}: saying goodbye to the rendezvous {} failed: {}", rank, where, e.getMessage());
        }
    }

    private static Socket connect(InetSocketAddress address, String where, int rank, Duration timeout,
                                  long deadlineNs) {
        long backoffMs = FIRST_BACKOFF_MS;
        IOException last = null;
        int attempts = 0;
        while (true) {
            long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
            if (remainingMs <= 0) {
                throw new JcclException(ErrorCode.TIMEOUT, "rank " + rank + " waited " + Durations.describe(timeout)
                        + " to reach the rendezvous " + where + " (" + attempts + " attempts; last error: "
                        + (last == null ? "none" : describe(last)) + ") — is the rank that created the unique id"
                        + " running, and is the address reachable?");
            }
            Socket socket = new Socket();
            attempts++;
            try {
                socket.setTcpNoDelay(true);
                socket.setKeepAlive(true);
                socket.connect(address, (int) Math.max(1, Math.min(remainingMs, MAX_CONNECT_ATTEMPT_MS)));
                return socket;
            } catch (IOException e) {
                closeQuietly(socket);
                last = e;
            }
            long sleepMs = Math.min(backoffMs + ThreadLocalRandom.current().nextLong(backoffMs / 2 + 1),
                    TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime()));
            backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
            if (sleepMs > 0) {
                try {
                    Thread.sleep(sleepMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new JcclException(ErrorCode.ABORTED, "rank " + rank + " was interrupted while connecting"
                            + " to the rendezvous " + where);
                }
            }
        }
    }

    private static long deadline(long timeoutNs) {
        long deadline = System.nanoTime() + timeoutNs;
        return deadline == FrameChannel.NO_DEADLINE ? deadline - 1 : deadline;
    }


    private static String describe(IOException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": "
                + e.getMessage();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // best effort
        }
    }
}
