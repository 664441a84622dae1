package io.jccl.metaroce.conformance;

import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.udp.UdpDriver;
import io.jccl.metaroce.udp.UdpDriverConfig;
import org.agrona.concurrent.SystemNanoClock;

import java.net.InetAddress;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/** The conformance suite on real loopback UDP sockets, both drivers stepped by the test's thread. */
class UdpDriverConformanceTest extends DriverConformanceTest {
    private static final long LIMIT_NS = 60_000_000_000L;   // only turns a hang into a failure

    @Override
    protected Pair connectedPair(long seed) {
        EndpointConfig config = EndpointConfig.defaults(new byte[32]);
        UdpDriverConfig udp = UdpDriverConfig.defaults(InetAddress.getLoopbackAddress());
        UdpDriver da = new UdpDriver(config, udp, new SplittableRandom(seed), new SystemNanoClock());
        UdpDriver db = new UdpDriver(config, udp, new SplittableRandom(seed + 1), new SystemNanoClock());
        long peer = da.addPeer(db.localAddresses());
        db.addPeer(da.localAddresses());
        int atA = da.endpoint().connect(System.nanoTime(), peer);
        Pair pair = new Pair() {
            private int atB = -1;

            @Override
            public Endpoint a() {
                return da.endpoint();
            }

            @Override
            public Endpoint b() {
                return db.endpoint();
            }

            @Override
            public int atA() {
                return atA;
            }

            @Override
            public int atB() {
                if (atB < 0) {
                    atB = db.endpoint().connectionTo(1);
                }
                return atB;
            }

            @Override
            public long nowNs() {
                return System.nanoTime();
            }

            @Override
            public boolean runUntil(BooleanSupplier done) {
                long deadline = System.nanoTime() + LIMIT_NS;
                while (!done.getAsBoolean()) {
                    if (System.nanoTime() > deadline) {
                        return false;
                    }
                    if (da.doWork() + db.doWork() == 0) {
                        Thread.onSpinWait();
                    }
                }
                return true;
            }

            @Override
            public void close() {
                da.close();
                db.close();
            }
        };
        if (!pair.runUntil(() -> da.endpoint().isEstablished(atA) && db.endpoint().connectionTo(1) >= 0)) {
            pair.close();
            throw new AssertionError("the UDP handshake did not complete");
        }
        return pair;
    }
}
