package io.jccl.metaroce.conformance;

import org.junit.jupiter.api.Tag;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.udp.IoMethod;
import io.jccl.metaroce.udp.Loopback;
import io.jccl.metaroce.udp.UdpDriver;

import java.util.function.BooleanSupplier;

/**
 * The conformance suite on real loopback UDP sockets with {@link IoMethod#CHANNEL} I/O, both drivers stepped by the
 * test's thread; {@link NativeUdpDriverConformanceTest} runs it with native I/O.
 */
@Tag("integration")
class UdpDriverConformanceTest extends DriverConformanceTest {
    /** @return the I/O method both drivers use */
    IoMethod io() {
        return IoMethod.CHANNEL;
    }

    @Override
    protected Pair connectedPair(long seed) {
        UdpDriver da = Loopback.driver(seed, io());
        UdpDriver db = Loopback.driver(seed + 1, io());
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
                return Loopback.run(da, db, done);
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
