package io.jccl.metaroce.protocol.wire;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer fuzz target: arbitrary bytes into {@link PacketValidator#check}, and, when it accepts them, into every getter
 * of the matching flyweight (see {@link WireFuzzHarness} for the input layout). Nothing may throw.
 *
 * <p>What runs:
 * <ul>
 *   <li>Default surefire run ({@code ./mvnw test}, and the first part of {@code verify}): <b>regression mode</b>
 *       ({@code JAZZER_FUZZ} unset). The method runs once per file of the committed seed corpus,
 *       {@code src/test/resources/io/jccl/metaroce/protocol/wire/WirePacketFuzzTestInputs/datagram/} (valid packets of
 *       every type in every buffer kind, and near misses), plus an empty input. Deterministic, well under a
 *       second.</li>
 *   <li>{@code ./mvnw verify}, surefire execution {@code jazzer-fuzz} of the module's pom (phase
 *       {@code integration-test}): <b>fuzzing mode</b> ({@code JAZZER_FUZZ=1}) for {@code jccl.fuzz.seconds} (10),
 *       starting from the seed corpus. A finding fails the build; the input is saved as
 *       {@code transport-metaroce/target/jazzer/crash-<sha1>}: copy it into the seed directory above and it is a
 *       regression test from then on. The working corpus grows in {@code target/jazzer/.cifuzz-corpus/}. Skip this
 *       run with {@code -Djccl.fuzz.skip}.</li>
 *   <li>On demand, for longer (seconds; the default run's tests skipped):
 *       <pre>
 * export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
 * ./mvnw -B -pl transport-metaroce -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Djccl.fuzz.seconds=3600
 *       </pre></li>
 * </ul>
 *
 * <p>The build pins Jazzer 0.30.0, which instruments Java 25 class files, so the fuzzing is coverage-guided; it
 * reaches every drop reason with about one input in eight accepted. (Jazzer 0.24.0 could not instrument them and
 * fuzzed blindly; the harness's repair bits, frame and CRC, still got accepted packets through that way.)
 *
 * <p>To add a fuzz target: copy this class, with a {@code byte[]} parameter and one {@code @FuzzTest} per class; give
 * it a seed directory {@code <Class>Inputs/<method>/}; then, in the module's pom, copy a {@code jazzer-fuzz}
 * execution under a new id with {@code <test>} naming the new class (Jazzer fuzzes one test per JVM), as
 * {@code io.jccl.metaroce.protocol.ConnectionFuzzTest} (datagrams into a live connection) does. Its regression mode
 * runs in the default surefire run without further setup.
 */
class WirePacketFuzzTest {
    private static final WireFuzzHarness HARNESS = new WireFuzzHarness();

    @FuzzTest(maxDuration = "10s")
    void datagram(byte[] input) {
        HARNESS.run(input);
    }
}
