package io.jccl.metaroce.udp;

import org.junit.jupiter.api.Tag;

/** {@link UdpDriverTest} with native I/O ({@code recvmmsg}/{@code sendmmsg}, GSO, GRO, ECN). */
@Tag("integration")
class NativeUdpDriverTest extends UdpDriverTest {
    @Override
    IoMethod io() {
        return IoMethod.NATIVE;
    }
}
