package io.jccl.net.tcp;

import org.junit.jupiter.api.Tag;
import java.util.Map;

/**
 * The whole TCP conformance suite, and its TCP-specific tests, with four bulk sockets each way (connections offered
 * for both directions, the default: nine sockets) and the smallest stripe the wire allows (4 KiB), so that most of
 * the suite's messages (from 4 KiB bulk, from 8 KiB striped) go on the bulk sockets, with uneven stripe counts and
 * odd lengths, mixed with short ones on the shared socket.
 */
@Tag("integration")
class TcpFourSocketConformanceTest extends TcpTransportConformanceTest {
    @Override
    protected Map<String, String> transportOptions() {
        return Map.of(TcpOptions.NSOCKS, "4", TcpOptions.MIN_STRIPE_BYTES, "4096");
    }
}
