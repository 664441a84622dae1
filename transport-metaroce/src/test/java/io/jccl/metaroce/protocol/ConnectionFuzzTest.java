package io.jccl.metaroce.protocol;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer fuzz target: datagrams, forged from templates of every packet type or raw, plus losses, reordering,
 * duplicates and timer advances, into a <em>live</em> connection between two endpoints with work in flight (see
 * {@link ConnectionFuzzHarness} for the set-up, the input encoding and the checks: nothing throws, nothing outside
 * the registered region and the posted receives is written, timers do not livelock, completions are sound, and
 * unless the input forged something authenticated the legitimate work completes with the right bytes).
 *
 * <p>Runs like {@code io.jccl.metaroce.protocol.wire.WirePacketFuzzTest}: in regression mode over the seed corpus
 * {@code src/test/resources/io/jccl/metaroce/protocol/ConnectionFuzzTestInputs/datagrams/} in every
 * {@code ./mvnw test}; fuzzed for {@code jccl.fuzz.connection.seconds} by the pom's {@code jazzer-fuzz-connection}
 * execution in {@code ./mvnw verify} (findings in {@code target/jazzer-connection/}); see docs/testing.md for a
 * long run. {@link ConnectionFuzzSeedsTest} keeps the handcrafted seeds meaningful.
 */
class ConnectionFuzzTest {
    private static final ConnectionFuzzHarness HARNESS = new ConnectionFuzzHarness();

    @FuzzTest(maxDuration = "10s")
    void datagrams(byte[] input) {
        HARNESS.run(input);
    }
}
