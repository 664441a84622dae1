package io.jccl.env;

import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.UniqueId;
import io.jccl.bootstrap.RendezvousServer;
import io.jccl.bootstrap.SocketAddresses;
import io.jccl.core.CommFactory;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import org.slf4j.Logger;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What {@link Communicator#fromEnvironment(CommConfig)} does: reads the {@link LaunchEnvironment}, agrees on the id
 * as it says, and joins. Every wait for the other ranks (the id file, rank 0's host name) is bounded by the init
 * timeout, and so is the join after it.
 */
public final class EnvCommunicator {
    private static final Logger LOG = JcclLog.logger(Subsystem.ENV, EnvCommunicator.class);
    private static final AtomicBoolean WARNED_DERIVED = new AtomicBoolean();
    private static final long RESOLVE_RETRY_NS = TimeUnit.MILLISECONDS.toNanos(250);

    private EnvCommunicator() {
    }

    /**
     * Joins the communicator of the job this process was launched in.
     *
     * @param config settings
     * @return the communicator
     * @see Communicator#fromEnvironment(CommConfig)
     */
    public static Communicator create(CommConfig config) {
        return create(System.getenv(), config);
    }

    /**
     * {@link #create(CommConfig)} for a given environment (tests).
     *
     * @param env    the launcher variables
     * @param config settings; {@code JCCL_*} options in {@code env} apply as for {@link CommConfig#resolve}
     * @return the communicator
     */
    public static Communicator create(Map<String, String> env, CommConfig config) {
        if (config == null) {
            throw EnvVars.invalid("config must not be null");
        }
        LaunchEnvironment le = LaunchEnvironment.detect(env);
        Duration initTimeout = config.resolve(env).initTimeout();
        int rank = le.rank();
        int size = le.size();
        LOG.info("launched by {}: rank {} of {}, rendezvous {}", le.launcher(), rank, size, le.rendezvous());
        return switch (le.rendezvous()) {
            case Rendezvous.Given g -> CommFactory.init(g.id(), rank, size, config, env);
            case Rendezvous.Alone a -> CommFactory.init(UniqueId.create(InetAddress.getLoopbackAddress()), 0, 1,
                    config, env);
            case Rendezvous.IdFile f -> viaFile(f, rank, size, config, initTimeout, env);
            case Rendezvous.RootListens r -> viaRoot(r, rank, size, config, initTimeout, env);
        };
    }

    private static Communicator viaFile(Rendezvous.IdFile f, int rank, int size, CommConfig config,
                                        Duration initTimeout, Map<String, String> env) {
        if (rank != 0) {
            return CommFactory.init(CommIdFile.await(f.file(), rank, initTimeout), rank, size, config, env);
        }
        UniqueId id = UniqueId.create();
        CommIdFile.publish(f.file(), id);
        try {
            return CommFactory.init(id, 0, size, config, env);
        } finally {
            // Once init returns every rank has joined, so none needs the file any more; after a failure it is stale.
            CommIdFile.remove(f.file());
        }
    }

    private static Communicator viaRoot(Rendezvous.RootListens r, int rank, int size, CommConfig config,
                                        Duration initTimeout, Map<String, String> env) {
        if (r.secret().derived() && WARNED_DERIVED.compareAndSet(false, true)) {
            LOG.warn("{} is not set: the rendezvous secret is derived from {}; anyone who knows these values can"
                    + " join. Set {} to the same random value on every rank (openssl rand -hex 32)",
                    RendezvousSecret.VARIABLE, r.secret().derivedFrom(), RendezvousSecret.VARIABLE);
        }
        long deadlineNs = System.nanoTime() + initTimeout.toNanos();
        InetAddress host = resolve(r, rank, deadlineNs);
        byte[] secret = r.secret().bytes();
        if (rank != 0) {
            return CommFactory.init(UniqueId.of(new InetSocketAddress(host, r.port()), secret), rank, size, config,
                    env);
        }
        // Rank 0 normally binds the named address. If that is not one of this host's addresses (a NAT or a service
        // address forwarding here), or a host name that resolves to loopback only here (Debian's 127.0.1.1 entry
        // in /etc/hosts, while the other hosts resolve it to the real address), it listens on every interface and
        // joins through loopback.
        boolean local = isLocal(host) && !(host.isLoopbackAddress() && !isLoopbackName(r.host()));
        InetAddress bind = local ? host : wildcardLike(host);
        RendezvousServer server;
        try {
            server = RendezvousServer.start(new InetSocketAddress(bind, r.port()), secret,
                    RendezvousServer.DEFAULT_HANDSHAKE_TIMEOUT);
        } catch (JcclException e) {
            throw new JcclException(e.code(), "rank 0 cannot start the rendezvous at " + r.origin() + ": "
                    + e.getMessage() + " (is another job using the port? set " + RendezvousChoice.ADDR
                    + " to choose another)", e);
        }
        InetAddress joinAt = local ? host : InetAddress.getLoopbackAddress();
        if (!local) {
            LOG.info("rank 0: {} ({}) is not an address of this host; the rendezvous listens on {} port {}",
                    r.host(), SocketAddresses.format(host), SocketAddresses.format(bind), r.port());
        }
        try {
            return CommFactory.init(UniqueId.of(new InetSocketAddress(joinAt, r.port()), secret), 0, size, config,
                    env);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** Resolves rank 0's host, retrying until the deadline: its DNS name may appear only once it runs. */
    private static InetAddress resolve(Rendezvous.RootListens r, int rank, long deadlineNs) {
        while (true) {
            try {
                return InetAddress.getByName(r.host());
            } catch (UnknownHostException e) {
                long leftNs = deadlineNs - System.nanoTime();
                if (leftNs <= 0) {
                    throw new JcclException(ErrorCode.TIMEOUT, "rank " + rank + " cannot resolve the rendezvous host '"
                            + r.host() + "' (" + r.origin() + ") within the init timeout: " + e.getMessage());
                }
                try {
                    TimeUnit.NANOSECONDS.sleep(Math.min(leftNs, RESOLVE_RETRY_NS));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new JcclException(ErrorCode.ABORTED, "rank " + rank + " was interrupted while resolving "
                            + r.host(), ie);
                }
            }
        }
    }

    private static boolean isLocal(InetAddress a) {
        if (a.isLoopbackAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(a) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    private static boolean isLoopbackName(String name) {
        return name.equalsIgnoreCase("localhost") || name.startsWith("127.") || name.equals("::1");
    }

    private static InetAddress wildcardLike(InetAddress a) {
        try {
            return a instanceof Inet6Address ? InetAddress.getByName("::") : InetAddress.getByName("0.0.0.0");
        } catch (UnknownHostException e) {
            throw new IllegalStateException("wildcard literals always parse", e);
        }
    }
}
