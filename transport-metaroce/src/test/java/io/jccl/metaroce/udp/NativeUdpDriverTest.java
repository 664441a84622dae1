package io.jccl.metaroce.udp;

/** {@link UdpDriverTest} with native I/O ({@code recvmmsg}/{@code sendmmsg}, GSO, GRO, ECN). */
class NativeUdpDriverTest extends UdpDriverTest {
    @Override
    IoMethod io() {
        return IoMethod.NATIVE;
    }
}
