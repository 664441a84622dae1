package io.jccl.metaroce.net;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.DynamicCompositeAgent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.slf4j.Logger;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/** The threads that run transports' duty cycles: one per transport (dedicated), or one shared by the JVM. */
final class DriverThreads {
    private static final Logger LOG = JcclLog.logger(Subsystem.NET, DriverThreads.class);

    private static DynamicCompositeAgent shared;
    private static AgentRunner sharedRunner;
    private static int sharedUsers;

    private DriverThreads() {
    }

    static IdleStrategy idleStrategy(MetaRoceOptions.Idle idle) {
        return switch (idle) {
            // Packets arrive without waking the thread, so a park is latency on every hop: yield for a while
            // (other threads get the core), then park at most 100 µs.
            case BACKOFF -> new BackoffIdleStrategy(100, 2000, TimeUnit.MICROSECONDS.toNanos(1),
                    TimeUnit.MICROSECONDS.toNanos(100));
            case YIELD -> new YieldingIdleStrategy();
            case BUSY -> new BusySpinIdleStrategy();
            case SLEEP -> new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100));
            case WAIT -> throw new IllegalArgumentException("WAIT needs the transport's sockets");
        };
    }

    /** Starts a daemon thread running {@code agent} alone. */
    static AgentRunner startDedicated(Agent agent, IdleStrategy idle, String threadName) {
        AgentRunner runner = new AgentRunner(idle, DriverThreads::onError, null, agent);
        AgentRunner.startOnThread(runner, daemon(threadName));
        return runner;
    }

    /** Adds {@code agent} to the JVM's shared driver thread, starting it (with {@code idle}) if needed. */
    static synchronized void addShared(Agent agent, MetaRoceOptions.Idle idle) {
        if (sharedRunner == null) {
            shared = new DynamicCompositeAgent("jccl-metaroce-shared");
            sharedRunner = new AgentRunner(idleStrategy(idle == MetaRoceOptions.Idle.WAIT
                    ? MetaRoceOptions.Idle.BACKOFF : idle), DriverThreads::onError, null, shared);
            AgentRunner.startOnThread(sharedRunner, daemon("jccl-metaroce-shared"));
            while (shared.status() != DynamicCompositeAgent.Status.ACTIVE) {
                Thread.onSpinWait();   // adding is refused until the runner started the composite
            }
        }
        while (!shared.tryAdd(agent)) {
            Thread.onSpinWait();
        }
        while (!shared.hasAddAgentCompleted()) {
            Thread.onSpinWait();
        }
        sharedUsers++;
    }

    /** Removes {@code agent} from the shared thread (waiting until it no longer runs); the last one stops it. */
    static synchronized void removeShared(Agent agent) {
        while (!shared.tryRemove(agent)) {
            Thread.onSpinWait();
        }
        while (!shared.hasRemoveAgentCompleted()) {
            Thread.onSpinWait();
        }
        if (--sharedUsers == 0) {
            sharedRunner.close();
            sharedRunner = null;
            shared = null;
        }
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    private static void onError(Throwable t) {
        LOG.error("metaroce driver failed in its duty cycle", t);
    }
}
