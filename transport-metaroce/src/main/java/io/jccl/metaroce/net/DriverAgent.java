package io.jccl.metaroce.net;

import org.agrona.concurrent.Agent;

import java.util.function.Consumer;

/**
 * The duty cycle of a {@link MetaRoceNetTransport}: requests and commands in, both endpoints driven, completions out.
 * A driver thread runs it as an {@link Agent} while nobody polls; a polling caller runs {@link #cycle()} itself.
 * Either holds the transport's driving flag while it does.
 */
final class DriverAgent implements Agent {
    private final MetaRoceNetTransport transport;
    private final Consumer<Object> runCommand = this::run;
    /** Work done by every duty cycle so far (driving thread; read by the simulator on the same thread). */
    private long cycleWork;

    DriverAgent(MetaRoceNetTransport transport) {
        this.transport = transport;
    }

    /** @return the work every duty cycle did so far (see {@link MetaRoceNetTransport#cycleWork()}) */
    long cycleWork() {
        return cycleWork;
    }

    @Override
    public void onStart() {
        if (transport.options.threading() != MetaRoceOptions.Threading.INVOKER) {
            transport.driverThread = Thread.currentThread();
        }
    }

    /**
     * A driver thread's turn: skipped while a caller is running a cycle, and while callers poll and have handed
     * over nothing (one busy thread per rank: the waiting caller's).
     */
    @Override
    public int doWork() {
        MetaRoceNetTransport t = transport;
        if (t.isClosing() || t.callerPolling() && t.commands.isEmpty() || !t.driving.compareAndSet(false, true)) {
            return 0;
        }
        try {
            return cycle();
        } finally {
            t.driving.set(false);
        }
    }

    /** One duty cycle; the caller holds the driving flag. @return the work it did */
    int cycle() {
        int work = cycle0();
        cycleWork += work;
        return work;
    }

    private int cycle0() {
        MetaRoceNetTransport t = transport;
        int work = t.commands.drain(runCommand, 1024);
        if (t.readiness != null) {
            if (work > 0) {
                // Something was just posted: a message leaves before the round polls and reads, since its peer
                // waits for it (an 8 B all-reduce at 2 ranks: 0.8 us a call of about 13, docs/performance.md).
                work += transmitUdp();
            }
            // Completions are handed on before the round's transmit: a caller polling beside the driver
            // thread learns that its message came without waiting for the flush of the acknowledgements the
            // same datagrams asked for (3.5 us per datagram here).
            t.readiness.poll();   // one call says which of both endpoints' sockets to read
            work += t.acceptUdp.receive(t.readiness);
            work += t.initiateUdp.receive(t.readiness);
            work += t.accepting.pollCompletions() + t.initiating.pollCompletions();
            work += transmitUdp();
        } else {
            work += t.accepting.driver.doWork();
            work += t.initiating.driver.doWork();
        }
        work += t.accepting.pollCompletions();
        work += t.initiating.pollCompletions();
        if (t.rtsTimers.armed()) {
            work += t.rtsTimers.poll(t.nanoTime());
        }
        work += t.connections.discoverAccepted();
        if (t.connections.hasPendingConnects()) {
            work += t.connections.advanceConnects();
        }
        return work;
    }

    /** Both UDP drivers' timers, packets and flushes; @return packets transmitted */
    private int transmitUdp() {
        return transport.acceptUdp.transmit() + transport.initiateUdp.transmit();
    }

    private void run(Object command) {
        if (command instanceof MetaRoceRequest r) {
            r.channel().onPosted(r);
        } else {
            ((Runnable) command).run();
        }
    }

    @Override
    public String roleName() {
        return "jccl-metaroce-rank" + transport.rank();
    }
}
