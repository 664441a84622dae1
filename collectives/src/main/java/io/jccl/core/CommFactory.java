package io.jccl.core;

import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.UniqueId;
import io.jccl.bootstrap.Bootstrap;
import io.jccl.bootstrap.InProcessBootstrap;
import io.jccl.bootstrap.TcpBootstrap;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;

/** Entry points behind {@link Communicator#init} and {@link Communicator#local}. */
public final class CommFactory {
    /** Most ranks {@link Communicator#local(int)} creates. */
    public static final int MAX_LOCAL_RANKS = 1024;

    private CommFactory() {
    }

    /**
     * Checks the transports' options: that {@code JCCL_NET} names a transport, and each provider's
     * {@link io.jccl.net.NetTransportProvider#checkOptions}. {@link CommConfig#resolve} calls it.
     *
     * @param options the {@code JCCL_*} options in effect
     * @throws IllegalArgumentException for the first invalid one, naming it, its value and what is allowed
     */
    public static void checkTransportOptions(Map<String, String> options) {
        Providers.checkOptions(options);
    }

    /**
     * @see Communicator#init(UniqueId, int, int, CommConfig)
     */
    public static Communicator init(UniqueId id, int rank, int size, CommConfig config) {
        return init(id, rank, size, config, System.getenv());
    }

    /**
     * {@link #init(UniqueId, int, int, CommConfig)} with the {@code JCCL_*} options of {@code environment} instead
     * of the process's (launcher adapters given an environment, tests).
     *
     * @param id          the rendezvous
     * @param rank        this rank
     * @param size        the number of ranks
     * @param config      settings, which win over the environment's
     * @param environment the environment
     * @return the communicator
     */
    public static Communicator init(UniqueId id, int rank, int size, CommConfig config,
                                    Map<String, String> environment) {
        if (id == null) {
            throw ArgChecks.invalid("id must not be null");
        }
        if (config == null) {
            throw ArgChecks.invalid("config must not be null");
        }
        if (size < 1) {
            throw ArgChecks.invalid("size must be at least 1, got " + size);
        }
        ArgChecks.rank("rank", rank, size);
        CommConfig.Resolved resolved = config.resolve(environment);
        try (Bootstrap bootstrap = TcpBootstrap.join(id, rank, size, resolved.initTimeout())) {
            return CommInit.create(bootstrap, resolved, CommInit.nextName());
        }
    }

    /**
     * @see Communicator#local(int, CommConfig)
     */
    public static List<Communicator> local(int n, CommConfig config) {
        return local(n, config, System.getenv());
    }

    /**
     * {@link #local(int, CommConfig)} with the {@code JCCL_*} options of {@code environment} instead of the
     * process's (tests).
     *
     * @param n           the number of ranks
     * @param config      settings, which win over the environment's
     * @param environment the environment
     * @return the communicators, in rank order
     */
    public static List<Communicator> local(int n, CommConfig config, Map<String, String> environment) {
        if (n < 1 || n > MAX_LOCAL_RANKS) {
            throw ArgChecks.invalid("n must be between 1 and " + MAX_LOCAL_RANKS + ", got " + n);
        }
        if (config == null) {
            throw ArgChecks.invalid("config must not be null");
        }
        CommConfig.Resolved resolved = config.resolve(environment);
        List<Bootstrap> bootstraps = InProcessBootstrap.group(n, resolved.initTimeout());
        String name = CommInit.nextName();
        DirectGroup directGroup = n > 1 ? new DirectGroup(n) : null;
        AtomicReferenceArray<Object> results = new AtomicReferenceArray<>(n);
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            int rank = r;
            threads.add(Thread.ofPlatform().daemon().name("jccl-init-" + name + "-r" + r).start(() -> {
                try (Bootstrap b = bootstraps.get(rank)) {
                    results.set(rank, CommInit.create(b, resolved, name, directGroup));
                } catch (Throwable t) {
                    results.set(rank, t);
                }
            }));
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new JcclException(ErrorCode.SYSTEM_ERROR, "interrupted while creating local communicators", e);
            }
        }
        List<Communicator> comms = new ArrayList<>();
        Throwable firstError = null;
        for (int r = 0; r < n; r++) {
            Object o = results.get(r);
            if (o instanceof Communicator c) {
                comms.add(c);
            } else if (firstError == null) {
                firstError = (Throwable) o;
            }
        }
        if (firstError != null) {
            comms.forEach(Communicator::abort);
            if (firstError instanceof JcclException je) {
                throw new JcclException(je.code(), je.detail(), je);
            }
            throw new JcclException(ErrorCode.INTERNAL_ERROR, "creating local communicators failed: " + firstError,
                    firstError);
        }
        return List.copyOf(comms);
    }
}
