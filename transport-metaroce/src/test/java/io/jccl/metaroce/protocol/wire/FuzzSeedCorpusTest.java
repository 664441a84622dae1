package io.jccl.metaroce.protocol.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/** The committed seed corpus of {@link WirePacketFuzzTest} still means what its names say. */
class FuzzSeedCorpusTest {
    private static List<Path> seeds() throws IOException, URISyntaxException {
        final URL dir = WirePacketFuzzTest.class.getResource("WirePacketFuzzTestInputs/datagram");
        assertThat(dir).as("seed directory on the test class path").isNotNull();
        try (Stream<Path> files = Files.list(Path.of(dir.toURI()))) {
            return files.sorted().toList();
        }
    }

    @Test
    void validSeedsAreAcceptedAndInvalidOnesDropped() throws Exception {
        final List<Path> seeds = seeds();
        assertThat(seeds.stream().filter(p -> p.getFileName().toString().startsWith("valid-")))
                .hasSizeGreaterThanOrEqualTo(Packets.TYPES.length);
        final WireFuzzHarness harness = new WireFuzzHarness();
        final PacketValidator validator = new PacketValidator();
        for (Path seed : seeds) {
            final String name = seed.getFileName().toString();
            final byte[] input = Files.readAllBytes(seed);
            final WireFuzzHarness.Staged d = harness.stage(input);
            if (name.startsWith("valid-")) {
                assertThat(validator.check(d.buffer(), d.offset(), d.length())).as(name).isNull();
            } else if (name.startsWith("invalid-")) {
                assertThat(validator.check(d.buffer(), d.offset(), d.length())).as(name).isNotNull();
            }
            harness.run(input);
        }
    }
}
