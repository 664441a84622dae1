package io.jccl.metaroce.sim;

import io.jccl.metaroce.impair.Impairments;

import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.Engine;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.TransmitSink;
import io.jccl.metaroce.protocol.Verbs;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SimulatorTest {
    /** An engine whose next timeout the test sets; records when onTimeout runs. */
    static class TimerEngine implements Engine {
        long next = Long.MAX_VALUE;
        long period;
        final List<Long> fired = new ArrayList<>();

        @Override
        public DropReason onDatagram(long nowNs, long source, int pathIndex, DirectBuffer buffer, int offset,
                                     int length, boolean ecnMarked) {
            return null;
        }

        @Override
        public void onTimeout(long nowNs) {
            fired.add(nowNs);
            next = period > 0 ? nowNs + period : Long.MAX_VALUE;
        }

        @Override
        public long nextTimeoutNs() {
            return next;
        }

        @Override
        public int pollTransmit(long nowNs, TransmitSink sink) {
            return 0;
        }
    }

    @Test
    void timersFollowNextTimeoutAndStaleOnesAreIgnored() {
        Simulator sim = new Simulator(FabricConfig.datacenter(), 1);
        TimerEngine e = new TimerEngine();
        sim.addNode(1, e);
        e.next = 100;
        sim.wake(1);
        sim.schedule(10, () -> {
            e.next = 50; // earlier: the event at 100 becomes stale
            sim.wake(1);
        });
        sim.schedule(60, () -> {
            e.next = 100; // the stale event's time again: still only one timeout at 100
            sim.wake(1);
        });
        sim.schedule(70, () -> sim.wake(1)); // unchanged: no new timer event
        RunResult r = sim.run(null, 1000, Long.MAX_VALUE);
        assertThat(r.reason()).isEqualTo(StopReason.IDLE);
        assertThat(e.fired).containsExactly(50L, 100L);
    }

    @Test
    void aTimeoutInThePastFiresAtOnce() {
        Simulator sim = new Simulator(FabricConfig.datacenter(), 1);
        TimerEngine e = new TimerEngine();
        sim.addNode(1, e);
        sim.schedule(500, () -> {
            e.next = 100;
            sim.wake(1);
        });
        sim.run(null, 1000, Long.MAX_VALUE);
        assertThat(e.fired).containsExactly(500L);
    }

    @Test
    void actionsAtOneInstantRunInTheOrderTheyWereScheduled() {
        Simulator sim = new Simulator(FabricConfig.datacenter(), 1);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            int k = i;
            sim.schedule(i % 2 == 0 ? 7 : 3, () -> order.add(k));
        }
        sim.run(null, 1000, Long.MAX_VALUE);
        assertThat(order.subList(0, 20)).isSortedAccordingTo(Integer::compare).allMatch(k -> k % 2 == 1);
        assertThat(order.subList(20, 40)).isSortedAccordingTo(Integer::compare).allMatch(k -> k % 2 == 0);
        assertThat(sim.nowNs()).isEqualTo(7);
    }

    @Test
    void stuckWhenNothingIsLeftButTheConditionDoesNotHold() {
        Simulator sim = new Simulator(FabricConfig.datacenter(), 1);
        sim.addNode(1, new TimerEngine());
        sim.wake(1);
        RunResult r = sim.run(() -> false, 1000, Long.MAX_VALUE);
        assertThat(r.reason()).isEqualTo(StopReason.STUCK);
        assertThat(r.completed()).isFalse();
    }

    @Test
    void livelockWhenTimeStopsPassing() {
        Simulator sim = new Simulator(FabricConfig.datacenter(), 1);
        TimerEngine e = new TimerEngine() {
            @Override
            public long nextTimeoutNs() {
                return 5; // never satisfied
            }
        };
        sim.addNode(1, e);
        sim.livelockEvents(1000);
        sim.wake(1);
        RunResult r = sim.run(() -> false, 1_000_000, Long.MAX_VALUE);
        assertThat(r.reason()).isEqualTo(StopReason.LIVELOCK);
        assertThat(r.nowNs()).isEqualTo(5);
        assertThatThrownBy(() -> sim.livelockEvents(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void timeLimitAndEventBudget() {
        Simulator sim = new Simulator(FabricConfig.datacenter(), 1);
        TimerEngine e = new TimerEngine();
        e.next = 1000;
        e.period = 1000;
        sim.addNode(1, e);
        sim.wake(1);
        RunResult r = sim.run(() -> false, Long.MAX_VALUE, 10_500);
        assertThat(r.reason()).isEqualTo(StopReason.TIME_LIMIT);
        assertThat(r.nowNs()).isEqualTo(10_500);
        assertThat(e.fired).hasSize(10);
        RunResult b = sim.run(() -> false, 3, Long.MAX_VALUE);
        assertThat(b.reason()).isEqualTo(StopReason.EVENT_BUDGET);
        assertThat(b.events()).isEqualTo(3);
        assertThat(e.fired).hasSize(13);
        assertThat(sim.events()).isEqualTo(r.events() + 3);
    }

    @Test
    void sameSeedSameTraceOtherSeedOtherTrace() {
        long a = trace(42);
        assertThat(trace(42)).isEqualTo(a);
        assertThat(trace(43)).isNotEqualTo(a);
    }

    private static long trace(long seed) {
        return TransferScenario.builder(seed).protocol(Protocols.goBackN(GoBackNConfig.defaults())).nodes(3)
                .impairments(Impairments.NONE.withLossRate(0.02).withReorder(0.01, 10, 100_000).withJitterNs(200))
                .randomWork(15, 20_000, 2).build().run().traceHash();
    }

    @Test
    void noAllocationPerPacketInSteadyState() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long perRun = 0;
        for (int round = 0; round < 8; round++) {
            Simulator sim = new Simulator(FabricConfig.datacenter(), round);
            EndpointConfig cfg = EndpointConfig.defaults(new byte[16]);
            Verbs a = new GoBackNEndpoint(cfg, GoBackNConfig.defaults(), 1);
            Verbs b = new GoBackNEndpoint(cfg, GoBackNConfig.defaults(), 2);
            MemorySegment src = MemorySegment.ofArray(new byte[8 << 20]);
            int key = b.registerRegion(MemorySegment.ofArray(new byte[8 << 20]), true);
            sim.addNode(1, a);
            sim.addNode(2, b);
            int conn = a.connect(0, 2);
            a.postWrite(conn, key, 0, src, 0, 8 << 20);
            sim.wake(1);
            long before = threads.getCurrentThreadAllocatedBytes();
            RunResult r = sim.run(null, Long.MAX_VALUE, Long.MAX_VALUE);
            perRun = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(r.reason()).isEqualTo(StopReason.IDLE);
            assertThat(sim.fabric().count(FabricCounter.DELIVERED)).isGreaterThan(2048);
        }
        // 2048 data packets, 512 ACKs, ~7700 events: a few bytes per packet at most (JIT noise), not a packet each.
        assertThat(perRun).as("bytes allocated by one warmed-up 8 MiB transfer").isLessThan(64 * 1024);
    }

    /** Records timer runs ("T@t") and arrivals ("D<seq>@t") in the order the simulator drives them. */
    static final class LoggingEngine extends TimerEngine {
        final List<String> log = new ArrayList<>();

        @Override
        public DropReason onDatagram(long nowNs, long source, int pathIndex, DirectBuffer buffer, int offset,
                                     int length, boolean ecnMarked) {
            log.add("D" + buffer.getInt(offset, java.nio.ByteOrder.LITTLE_ENDIAN) + "@" + nowNs);
            return null;
        }

        @Override
        public void onTimeout(long nowNs) {
            log.add("T@" + nowNs);
            super.onTimeout(nowNs);   // no period: no further timeout
        }
    }

    @Test
    void aStalledNodeIsDrivenAtTheEndOfItsStallTimersFirstThenArrivalsInOrder() {
        Simulator sim = new Simulator(FabricConfig.datacenter(), 3);
        PacketEngine sender = new PacketEngine(1).plan(0, 2, 0, 200, 10, 10_000);
        LoggingEngine receiver = new LoggingEngine();
        sim.addNode(1, sender);
        sim.addNode(2, receiver);
        receiver.next = 50_000;
        sim.stall(2, 30_000, 100_000);
        sim.wake(1);
        sim.wake(2);
        sim.run(null, 10_000, Long.MAX_VALUE);
        List<String> log = receiver.log;
        // Datagrams sent every 10 us arrive a few us later; those due in [30, 130) us wait for the stall's end.
        assertThat(log).hasSize(11);
        assertThat(log.subList(0, 3)).allMatch(e -> e.startsWith("D") && Long.parseLong(e.split("@")[1]) < 30_000);
        int timer = log.indexOf("T@130000");
        assertThat(timer).as("%s", log).isEqualTo(3);
        List<String> held = log.subList(4, 11);
        for (int i = 0; i < held.size(); i++) {
            String e = held.get(i);
            int seq = Integer.parseInt(e.substring(1, e.indexOf('@')));
            long at = Long.parseLong(e.split("@")[1]);
            assertThat(seq).as("arrival order kept: %s", log).isEqualTo(3 + i);
            assertThat(at).as("%s", log).isGreaterThanOrEqualTo(130_000);
        }
    }

    @Test
    void stallsAreCheckedAndMayFollowEachOther() {
        Simulator sim = new Simulator(FabricConfig.datacenter(), 3);
        LoggingEngine e = new LoggingEngine();
        sim.addNode(2, e);
        assertThatThrownBy(() -> sim.stall(9, 0, 10)).hasMessageContaining("no node 9");
        assertThatThrownBy(() -> sim.stall(2, 0, 0)).hasMessageContaining("more than 0 ns");
        sim.stall(2, 100, 50);
        sim.stall(2, 150, 50);   // back to back
        sim.stall(2, 10, 20);    // before the others
        assertThatThrownBy(() -> sim.stall(2, 120, 100)).hasMessageContaining("overlaps its stall [100, 150)");
        assertThatThrownBy(() -> sim.stall(2, 20, 100)).hasMessageContaining("overlaps its stall [10, 30)");
        e.next = 120;
        sim.wake(2);
        sim.run(null, 1000, Long.MAX_VALUE);
        assertThat(e.log).containsExactly("T@200");   // due in the first window, held through the second
        assertThatThrownBy(() -> sim.stall(2, 100, 10)).hasMessageContaining("no earlier than now (200 ns)");
    }
}
