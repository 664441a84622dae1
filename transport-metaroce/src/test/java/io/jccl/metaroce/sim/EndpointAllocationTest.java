package io.jccl.metaroce.sim;

import io.jccl.metaroce.impair.Impairments;

import io.jccl.metaroce.protocol.CompletionHandler;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** Once warm, the MetaRoCE data path allocates nothing per packet: WRITEs, SEND/RECV, ACKs, retransmissions. */
class EndpointAllocationTest {
    @ParameterizedTest(name = "loss {0}")
    @ValueSource(doubles = {0, 0.01})
    void noAllocationPerPacketInSteadyState(double loss) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Simulator sim = new Simulator(FabricConfig.datacenter().withImpairments(Impairments.NONE.withLossRate(loss)), 5);
        EndpointConfig cfg = EndpointConfig.defaults(new byte[32]);
        Endpoint a = new Endpoint(cfg, new SplittableRandom(1));
        Endpoint b = new Endpoint(cfg, new SplittableRandom(2));
        sim.addNode(1, a);
        sim.addNode(2, b);
        int size = 4 << 20;
        MemorySegment src = MemorySegment.ofArray(new byte[size]);
        MemorySegment dst = MemorySegment.ofArray(new byte[size]);
        MemorySegment recv = MemorySegment.ofArray(new byte[1 << 20]);
        int key = b.registerRegion(dst, true);
        int conn = a.connect(0, 2);
        sim.wake(1);
        sim.run(() -> a.isEstablished(conn) && b.connectionTo(1) >= 0, Long.MAX_VALUE, Long.MAX_VALUE);
        int back = b.connectionTo(1);
        int[] done = new int[1];
        CompletionHandler count = (c, id, kind, status, bytes) -> done[0]++;
        long perRound = 0;
        long packets = 0;
        for (int round = 0; round < 12; round++) {
            done[0] = 0;
            long sentBefore = sim.fabric().count(FabricCounter.TRANSMITTED);
            long before = threads.getCurrentThreadAllocatedBytes();
            a.postWrite(conn, key, 0, src, 0, size);
            b.postRecv(back, 1, recv, 0, recv.byteSize());
            a.postSend(conn, 1, src, 0, recv.byteSize());
            sim.wake(1);
            sim.wake(2);
            sim.run(() -> {
                a.pollCompletions(count);
                b.pollCompletions(count);
                return done[0] == 3;
            }, Long.MAX_VALUE, Long.MAX_VALUE);
            perRound = threads.getCurrentThreadAllocatedBytes() - before;
            packets = sim.fabric().count(FabricCounter.TRANSMITTED) - sentBefore;
            assertThat(done[0]).isEqualTo(3);
        }
        // ~1300 data packets and their ACKs per round; the round's own stop condition (a capturing lambda) is the
        // 64-128 bytes measured here: nothing per packet.
        assertThat(packets).isGreaterThan(1280);
        assertThat(perRound).as("bytes allocated by one warm round of %d packets", packets).isLessThan(1024);
    }
}
