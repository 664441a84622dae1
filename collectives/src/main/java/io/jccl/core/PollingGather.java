package io.jccl.core;

import io.jccl.bootstrap.Bootstrap;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.net.NetTransport;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A bootstrap all-gather during which the calling thread keeps polling the transports that move only when polled
 * ({@link NetTransport#progress()}). Communicator creation ends with one: a rank whose connections are set up waits
 * there for the others, and a peer still setting up may need it meanwhile — to acknowledge a connection hello its
 * sender had to send again (most likely asked to by a receiver-not-ready that crossed the first acknowledgement).
 * Blocked in the bootstrap without polling, it answered nobody, and the peer's set-up timed out: metaroce's invoker
 * threading failed creation in about 1 of 20 two-rank runs (2026-12-06).
 */
final class PollingGather {
    private static final Logger LOG = JcclLog.logger(Subsystem.INIT, PollingGather.class);
    /** How long the polling thread parks between polls: well inside any retransmission timeout. */
    static final long POLL_PARK_NS = TimeUnit.MICROSECONDS.toNanos(20);

    private PollingGather() {
    }

    /**
     * @param bootstrap  the rendezvous of the communicator being created (only this call uses it meanwhile)
     * @param mine       this rank's contribution
     * @param transports the communicator's transports
     * @param threadName the name of the thread that runs the gather when some transport wants polling
     * @return every rank's contribution, as {@link Bootstrap#allGather} returns them; its exceptions are rethrown
     */
    static byte[][] allGather(Bootstrap bootstrap, byte[] mine, Collection<NetTransport> transports,
                              String threadName) {
        List<NetTransport> polled = new ArrayList<>();
        for (NetTransport t : transports) {
            if (polledOnce(t)) {
                polled.add(t);
            }
        }
        if (polled.isEmpty()) {
            return bootstrap.allGather(mine);   // every transport moves on its own: block here
        }
        AtomicReference<byte[][]> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread gather = Thread.ofPlatform().daemon().name(threadName).start(() -> {
            try {
                result.set(bootstrap.allGather(mine));
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        // The bootstrap bounds the wait (a rank that does not arrive fails it), so this loop ends when it does.
        while (gather.isAlive()) {
            for (int i = 0; i < polled.size(); i++) {
                if (!polledOnce(polled.get(i))) {
                    polled.remove(i--);
                }
            }
            LockSupport.parkNanos(POLL_PARK_NS);
        }
        Throwable e = failure.get();   // read after the thread ended: isAlive() returning false orders them
        if (e instanceof RuntimeException r) {
            throw r;
        }
        if (e instanceof Error err) {
            throw err;
        }
        return result.get();
    }

    /**
     * @return whether polling {@code t} moves it; false also when it throws: a broken transport is not polled again
     *         (the ranks learn of the failure from the statuses gathered)
     */
    private static boolean polledOnce(NetTransport t) {
        try {
            return t.progress();
        } catch (RuntimeException e) {
            LOG.debug("polling a transport during the last creation round failed", e);
            return false;
        }
    }
}
