package io.jccl.net.tcp;

import java.util.Map;

/**
 * The whole TCP conformance suite, and its TCP-specific tests, with four sockets per connection and the smallest
 * stripe the wire allows (4 KiB), so that most of the suite's messages (from 8 KiB) are striped, with uneven
 * stripe counts and odd lengths, mixed with whole ones.
 */
class TcpFourSocketConformanceTest extends TcpTransportConformanceTest {
    @Override
    protected Map<String, String> transportOptions() {
        return Map.of(TcpOptions.NSOCKS, "4", TcpOptions.MIN_STRIPE_BYTES, "4096");
    }
}
