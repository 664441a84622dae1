package io.jccl.metaroce.conformance;

import io.jccl.metaroce.udp.IoMethod;

/** The conformance suite on real loopback UDP sockets with native I/O ({@code recvmmsg}/{@code sendmmsg}, GSO, GRO). */
class NativeUdpDriverConformanceTest extends UdpDriverConformanceTest {
    @Override
    IoMethod io() {
        return IoMethod.NATIVE;
    }
}
