package io.jccl.metaroce.udp;

import io.jccl.metaroce.protocol.CompletionHandler;
import io.jccl.metaroce.protocol.Endpoint;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** Once warm, the UDP driver's data path (receive, timers, send) allocates nothing per datagram. */
class UdpDriverAllocationTest {
    @Test
    void noAllocationPerDatagramOnceWarm() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (UdpDriver a = Loopback.driver(1); UdpDriver b = Loopback.driver(2);
             Arena arena = Arena.ofConfined()) {
            long peer = a.addPeer(b.localAddresses());
            b.addPeer(a.localAddresses());
            Endpoint ea = a.endpoint();
            MemorySegment src = arena.allocate(4 << 20);
            int key = b.endpoint().registerRegion(arena.allocate(4 << 20), true);
            int conn = ea.connect(System.nanoTime(), peer);
            assertThat(Loopback.run(a, b, () -> ea.isEstablished(conn))).isTrue();
            long deadline = System.nanoTime() + Loopback.LIMIT_NS;
            int[] done = new int[1];
            CompletionHandler count = (c, id, kind, status, bytes) -> done[0]++;
            long perRound = 0;
            long datagrams = 0;
            for (int round = 0; round < 15; round++) {
                done[0] = 0;
                long sent = a.datagramsSent() + b.datagramsSent();
                long before = threads.getCurrentThreadAllocatedBytes();
                ea.postWrite(conn, key, 0, src, 0, src.byteSize());
                while (done[0] == 0 && System.nanoTime() < deadline) {
                    a.doWork();
                    b.doWork();
                    ea.pollCompletions(count);
                }
                perRound = threads.getCurrentThreadAllocatedBytes() - before;
                datagrams = a.datagramsSent() + b.datagramsSent() - sent;
                assertThat(done[0]).isEqualTo(1);
            }
            assertThat(datagrams).isGreaterThan(1024);
            // The round's own bookkeeping aside, nothing: the JDK reuses the sender address of each receive.
            assertThat(perRound).as("bytes allocated by one warm 4 MiB round of %d datagrams", datagrams)
                    .isLessThan(1024);
        }
    }
}
