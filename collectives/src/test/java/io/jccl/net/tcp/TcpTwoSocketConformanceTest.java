package io.jccl.net.tcp;

import org.junit.jupiter.api.Tag;
import java.util.Map;

/**
 * The whole TCP conformance suite, and its TCP-specific tests, with one-way connections
 * ({@code JCCL_SOCKET_DUPLEX=0}) of two sockets and the default shortest stripe (64 KiB): messages of 128 KiB and
 * more go out in two stripes, shorter ones whole on socket 0.
 */
@Tag("integration")
class TcpTwoSocketConformanceTest extends TcpTransportConformanceTest {
    @Override
    protected Map<String, String> transportOptions() {
        return Map.of(TcpOptions.NSOCKS, "2", TcpOptions.DUPLEX, "0");
    }
}
