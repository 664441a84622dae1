package io.jccl.metaroce.conformance;

import org.junit.jupiter.api.Tag;
import io.jccl.metaroce.udp.IoMethod;
import io.jccl.metaroce.udp.Loopback;
import io.jccl.metaroce.udp.UdpDriver;


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
        long peer = Loopback.introduce(da, db);
        int atA = da.endpoint().connect(System.nanoTime(), peer);
        if (!Loopback.run(da, db, () -> da.endpoint().isEstablished(atA) && db.endpoint().connectionTo(1) >= 0)) {
            da.close();
            db.close();
            throw new AssertionError("the UDP handshake did not complete");
        }
        return new Pair(da.endpoint(), db.endpoint(), atA, db.endpoint().connectionTo(1), System::nanoTime,
                done -> Loopback.run(da, db, done), () -> {
                    da.close();
                    db.close();
                });
    }
}
