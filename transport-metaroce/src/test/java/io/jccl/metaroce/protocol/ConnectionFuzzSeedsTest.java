package io.jccl.metaroce.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;

import io.jccl.metaroce.protocol.ConnectionFuzzHarness.Outcome;
import io.jccl.metaroce.protocol.ConnectionFuzzHarness.Script;
import io.jccl.metaroce.protocol.wire.PacketType;
import org.junit.jupiter.api.Test;

/**
 * The handcrafted seeds of {@link ConnectionFuzzTest}: each reaches the state its name says (the harness's checks
 * pass, and a condition on the outcome holds), and the committed seed files are these inputs. After changing a
 * scenario or the input encoding, rewrite the files with
 * {@code ./mvnw -pl transport-metaroce test -Dtest=ConnectionFuzzSeedsTest -Djccl.fuzz.writeSeeds=true}.
 * Findings of the fuzzer (crash-*) live in the same directory and are not checked here.
 */
class ConnectionFuzzSeedsTest {
    private static final String DIR = "ConnectionFuzzTestInputs/datagrams";

    // Type indexes into ConnectionFuzzHarness.TYPES.
    private static final int WRITE = typeIndex(PacketType.WRITE);
    private static final int SEND = typeIndex(PacketType.SEND);
    private static final int ACK = typeIndex(PacketType.ACK);
    private static final int INIT = typeIndex(PacketType.HANDSHAKE_INIT);
    private static final int ACCEPT = typeIndex(PacketType.HANDSHAKE_ACCEPT);
    private static final int PROBE = typeIndex(PacketType.PROBE);
    private static final int PROBE_REPLY = typeIndex(PacketType.PROBE_REPLY);
    private static final int CLOSE = typeIndex(PacketType.CLOSE);
    private static final int RNR = typeIndex(PacketType.RNR);
    /** Endpoint 1 (B) as the target, in c1. */
    private static final int TO_B = 1;
    /** c1: the next path generation. */
    private static final int NEXT_GENERATION = 2;
    /** Forged-op option: a stranger (2) as the source. */
    private static final int STRANGER = 4;
    /** c2: handshakes with ids and nonce from the input. */
    private static final int NOT_REAL = 64;

    record Seed(byte[] input, Predicate<Outcome> reaches) {
    }

    /** @return where {@code type} stands in {@link ConnectionFuzzHarness#TYPES}: the index an input names it by */
    private static int typeIndex(int type) {
        for (int i = 0; i < ConnectionFuzzHarness.TYPES.length; i++) {
            if (ConnectionFuzzHarness.TYPES[i] == type) {
                return i;
            }
        }
        throw new IllegalArgumentException("the harness forges no packets of type " + type);
    }

    static Map<String, Seed> seeds() {
        Map<String, Seed> m = new LinkedHashMap<>();
        m.put("clean-run", new Seed(new Script().run(0x48).run(0x48).bytes(),
                o -> !o.tainted() && o.legitDone() && o.a().get(Counter.RNR_RECEIVED) > 0));
        m.put("loss-reorder-duplicate-ecn", new Seed(new Script().drop(0).drop(3).deliverAt(5, 4).deliver(1)
                .deliver(8).deliver(2).deliver(3).replay(0, 0).deliver(6, 0).run(0x48).run(0x48).bytes(),
                o -> !o.tainted() && o.legitDone()
                        && o.a().get(Counter.RETRANSMITS_SACK) + o.a().get(Counter.RETRANSMITS_RTO) > 0
                        && o.b().get(Counter.DUPLICATE_PACKETS_RECEIVED) > 0
                        && o.b().get(Counter.ECN_MARKS_RECEIVED) > 0));
        // Every path silent at once (the network frozen) is no evidence against any one of them: none fails.
        m.put("blackout-failures-withheld", new Seed(new Script().advance(0x50).advance(0x60).advance(0x68)
                .run(0x70).run(0x70).bytes(),
                o -> !o.tainted() && o.legitDone() && o.a().get(Counter.PATH_FAILURES_WITHHELD) > 0
                        && o.a().get(Counter.PATHS_FAILED) == 0 && o.a().get(Counter.CONNECTIONS_CLOSED) == 0));
        // Silent past a quarter of the silence limit (5 ms here): a scout moves one path to a new route; it is probed
        // and readmitted once the network runs again.
        m.put("blackout-path-failure-readmit", new Seed(new Script().advance(0x50).advance(0x60).advance(0x68)
                .advance(0x70).run(0x70).run(0x70).bytes(),
                o -> !o.tainted() && o.legitDone() && o.a().get(Counter.PATHS_REROUTED_SILENT) > 0
                        && o.a().get(Counter.PATHS_READMITTED) > 0 && o.a().get(Counter.CONNECTIONS_CLOSED) == 0));
        m.put("blackout-connection-dead", new Seed(new Script().advance(0x80).advance(0x80).advance(0x80)
                .bytes(),
                o -> !o.tainted() && o.legitDone() && o.a().get(Counter.CONNECTIONS_CLOSED) > 0));
        m.put("rnr-then-late-receive", new Seed(new Script().run(0x48).verb(0).run(0x48).bytes(),
                o -> !o.tainted() && o.legitDone() && o.b().get(Counter.RNR_SENT) > 0));
        // Regression (Endpoint.place): an off-heap datagram wrapped with its own length as the capacity, a short
        // one (A's 232-byte last WRITE chunk) and then a full one at the same address, read a stale view.
        m.put("offheap-exact-capacity-rewrap", new Seed(new Script().deliverAt(3, 2).deliver(2).deliver(2)
                .bytes(), o -> !o.tainted() && o.legitDone()));
        // A WRITE with the real connection id, session tag, generation and region key: authenticated, placed.
        m.put("forged-write-inside-region", new Seed(new Script().forge(0, TO_B, 0, WRITE, 0).raw(0)
                .small(0).raw(0).small(9).raw(0).u16(256).small(0).u16(1500).bytes(),
                o -> o.tainted() && o.b().get(Counter.PAYLOAD_BYTES_PLACED) >= 256
                        && o.b().drops(DropReason.REGION_BOUNDS) == 0));
        m.put("forged-write-beyond-region", new Seed(new Script().forge(0, TO_B, 0, WRITE, 0).raw(0)
                .small(0).raw(0).small(9).raw(0).u16(256).small(0).u16(2000).bytes(),
                o -> o.b().drops(DropReason.REGION_BOUNDS) == 1));
        // Regression (Receiver.onData): a SEND claiming a 2^40-byte message, chunk 7424 — more chunks than an
        // int counts — once made the receive's chunk map too small (ArrayIndexOutOfBoundsException).
        m.put("forged-send-huge-message", new Seed(new Script().forge(0, TO_B, 0, SEND, 0).raw(0)
                .small(0).raw(0).small(0).small(1).raw(1).u64(1L << 40).raw(0).small(7424).bytes(),
                o -> o.b().drops(DropReason.MESSAGE_BOUNDS) == 1));
        // Regression (InboundMessage.learn): a SEND claiming a 2^38-byte message for a 1 KiB receive made the
        // receiver allocate a chunk map for the claimed length (134 MB, kept in the pool); see below.
        m.put("forged-send-huge-message-truncated", new Seed(new Script().forge(0, TO_B, 0, SEND, 0).raw(0)
                .small(0).raw(0).small(0).small(1).raw(1).u64(1L << 38).raw(0).small(0).bytes(),
                o -> o.tainted() && o.b().drops(DropReason.MESSAGE_BOUNDS) == 0
                        && o.b().get(Counter.PAYLOAD_BYTES_PLACED) >= 256));
        // Regression (Connection.onRnr): a retry-after near Long.MAX_VALUE wrapped the resume time into the past,
        // where the pause timer was due for ever (a livelock at one instant).
        m.put("forged-rnr-huge-retry", new Seed(new Script().forge(0, 0, 0, RNR, 0).raw(0)
                .small(1).small(0).raw(0xFF).u64(Long.MAX_VALUE).bytes(),
                o -> o.tainted() && o.a().get(Counter.RNR_RECEIVED) > 0));
        // An ACK acknowledging PSNs 2 and 4 of path 0 only (holes below them are losses) with a 4 byte/s rate.
        m.put("forged-ack-sack-holes-slow-rate", new Seed(new Script().forge(0, 0, 0, ACK, 0).raw(0)
                .small(0).small(3).raw(0).raw(4 << 2 | 2).raw(1).raw(0b10100).run(0x48).bytes(),
                o -> o.tainted() && o.a().get(Counter.SACK_HOLES) > 0));
        // A probe of the next generation (the receiver starts the path over), then a probe reply.
        m.put("forged-probe-new-generation", new Seed(new Script()
                .forge(0, TO_B | NEXT_GENERATION, 0, PROBE, 1).raw(0).small(1).raw(0)
                .forge(0, 0, 0, PROBE_REPLY, 1).raw(0).small(1).raw(0).run(0x48).bytes(),
                o -> o.tainted() && o.b().get(Counter.CONTROL_PACKETS_RECEIVED) >= 1));
        m.put("forged-close", new Seed(new Script().deliver(0).forge(0, TO_B, 0, CLOSE, 0).raw(0).raw(0)
                .bytes(), o -> o.b().get(Counter.CONNECTIONS_CLOSED) == 1));
        // A signed INIT from a stranger opens a second connection on B; a WRITE on it lands in B's region.
        m.put("forged-init-stranger-then-write", new Seed(new Script()
                .forge(STRANGER, TO_B, NOT_REAL, INIT, 0).raw(0).u32(4242).raw(4).u16(512).u64(7).u64(8)
                .forge(0, TO_B, 1, WRITE, 0).raw(0).small(0).raw(0).small(0).raw(0).u16(100).small(0).u16(0)
                .bytes(),
                o -> o.b().get(Counter.CONNECTIONS_OPENED) == 2 && o.b().get(Counter.PAYLOAD_BYTES_PLACED) >= 100));
        // A connects to a stranger; a signed ACCEPT for that connection establishes it.
        m.put("connect-then-forged-accept", new Seed(new Script().verb(4 << 1)
                .forge(0, 0, 1, ACCEPT, 0).raw(0).u64(1).u64(2).bytes(),
                o -> o.a().get(Counter.CONNECTIONS_OPENED) == 2));
        m.put("verbs-close-deregister-post", new Seed(new Script().deliver(0).verb(1 | 3 << 1).verb(5 << 1)
                .u16(300).raw(5).raw(0).verb(1 | 1 << 1).raw(5).deliver(0).verb(2 << 1).run(0x48).bytes(),
                o -> o.tainted() && o.a().get(Counter.CONNECTIONS_CLOSED) == 1));
        m.put("raw-and-mutated", new Seed(new Script().rawDatagram(1, new byte[40]).deliver(0)
                .mutate(0, 1, 12, 0x55, 30, 0x01).mutate(1, 0x18, 20, 0x12345678).run(0x48).bytes(),
                o -> o.a().totalDrops() + o.b().totalDrops() > 0));
        return m;
    }

    @Test
    void eachSeedReachesWhatItsNameSays() {
        ConnectionFuzzHarness harness = new ConnectionFuzzHarness();
        seeds().forEach((name, seed) -> {
            Outcome o = harness.run(seed.input());
            assertThat(seed.reaches().test(o)).as("%s: tainted=%s legitDone=%s%nA:%n%sB:%n%s", name, o.tainted(),
                    o.legitDone(), o.a(), o.b()).isTrue();
        });
    }

    @Test
    void aTruncatedReceiveAllocatesNothingForTheClaimedLength() {
        ConnectionFuzzHarness harness = new ConnectionFuzzHarness();
        byte[] input = seeds().get("forged-send-huge-message-truncated").input();
        harness.run(input);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        harness.run(input);
        assertThat(threads.getCurrentThreadAllocatedBytes() - before).as("bytes allocated by one run")
                .isLessThan(16L << 20);
    }

    @Test
    void theCommittedSeedFilesAreTheseInputs() throws IOException, URISyntaxException {
        if (Boolean.getBoolean("jccl.fuzz.writeSeeds")) {
            Path dir = Path.of("src/test/resources/io/jccl/metaroce/protocol", DIR);
            Files.createDirectories(dir);
            for (Map.Entry<String, Seed> e : seeds().entrySet()) {
                Files.write(dir.resolve(e.getKey()), e.getValue().input());
            }
        }
        URL dir = ConnectionFuzzTest.class.getResource(DIR);
        assertThat(dir).as("seed directory on the test class path").isNotNull();
        for (Map.Entry<String, Seed> e : seeds().entrySet()) {
            Path file = Path.of(dir.toURI()).resolve(e.getKey());
            assertThat(file).as("seed file %s (rewrite with -Djccl.fuzz.writeSeeds=true)", e.getKey()).exists();
            assertThat(Files.readAllBytes(file)).as("seed file %s (rewrite with -Djccl.fuzz.writeSeeds=true)",
                    e.getKey()).isEqualTo(e.getValue().input());
        }
    }
}
