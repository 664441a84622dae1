package io.jccl.metaroce.conformance;

import org.junit.jupiter.api.Tag;
import io.jccl.metaroce.udp.IoMethod;

/** The conformance suite on real loopback UDP sockets with native I/O ({@code recvmmsg}/{@code sendmmsg}, GSO, GRO). */
@Tag("integration")
class NativeUdpDriverConformanceTest extends UdpDriverConformanceTest {
    @Override
    IoMethod io() {
        return IoMethod.NATIVE;
    }
}
