package io.jccl.net.local;

import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportConformanceTest;

/** The in-JVM transport against the transport conformance suite. */
class LocalTransportConformanceTest extends NetTransportConformanceTest {
    @Override
    protected NetTransport createTransport(int rank, int size) {
        return new LocalTransport();
    }
}
