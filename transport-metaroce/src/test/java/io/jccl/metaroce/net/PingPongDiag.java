package io.jccl.metaroce.net;

import io.jccl.net.Listener;
import io.jccl.net.NetRequest;
import io.jccl.net.NetTransport;
import io.jccl.net.PendingConnect;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Diagnostic, run by hand ({@code -Dtest=PingPongDiag}): message latency between two transports, with counters. */
class PingPongDiag {
    @Test
    void pingPong() {
        int bytes = Integer.getInteger("diag.bytes", 65536);
        Map<String, String> options = Map.of("JCCL_METAROCE_RTO_FLOOR_US", System.getProperty("diag.rto", "5000"),
                "JCCL_METAROCE_THREADING", System.getProperty("diag.threading", "dedicated"));
        try (NetTransport a = MetaRoceTransportConformanceTest.metaroce(0, options);
             NetTransport b = MetaRoceTransportConformanceTest.metaroce(1, options);
             Arena arena = Arena.ofShared()) {
            Listener lb = b.listen(null);
            PendingConnect pc = a.connect(lb.handle(), null);
            SendConnection s = null;
            RecvConnection r = null;
            while (s == null || r == null) {
                if (s == null) {
                    s = pc.poll();
                }
                if (r == null) {
                    r = lb.accept();
                }
            }
            MemorySegment src = arena.allocate(bytes);
            MemorySegment dst = arena.allocate(bytes);
            int rounds = Integer.getInteger("diag.rounds", 3);
            for (int round = 0; round < rounds; round++) {
                long start = System.nanoTime();
                int n = Integer.getInteger("diag.n", 300);
                for (int i = 0; i < n; i++) {
                    NetRequest rr = r.irecv(dst, 0, bytes, i, null);
                    NetRequest sr = s.isend(src, 0, bytes, i, null);
                    boolean rd = false;
                    boolean sd = false;
                    while (!rd || !sd) {
                        ((MetaRoceNetTransport) a).driveFromCaller();
                        ((MetaRoceNetTransport) b).driveFromCaller();
                        rd = rd || rr.test() != NetRequest.NOT_DONE;
                        sd = sd || sr.test() != NetRequest.NOT_DONE;
                    }
                }
                System.out.printf("DIAG %d bytes: %.1f us per message%n", bytes, (System.nanoTime() - start) / 1e3 / n);
            }
            System.out.println("DIAG " + MetaRoceNetTransport.liveCounters());
        }
    }
}
