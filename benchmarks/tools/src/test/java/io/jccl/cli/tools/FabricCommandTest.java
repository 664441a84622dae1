package io.jccl.cli.tools;

import io.jccl.cli.Main;
import io.jccl.cli.bench.UsageErrors;
import io.jccl.metaroce.fabric.RelayClient;
import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.udp.UdpDriver;
import io.jccl.metaroce.udp.UdpDriverConfig;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code jccl fabric}: a real relay process body between two UDP endpoints, as a proxy, and its usage errors. */
@Tag("integration")
class FabricCommandTest {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();

    private static String join(List<InetSocketAddress> addresses) {
        return addresses.stream().map(a -> a.getAddress().getHostAddress() + ":" + a.getPort())
                .collect(Collectors.joining(","));
    }

    private static List<InetSocketAddress> parse(String list) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String s : list.trim().split(",")) {
            int colon = s.lastIndexOf(':');
            out.add(new InetSocketAddress(s.substring(0, colon), Integer.parseInt(s.substring(colon + 1))));
        }
        return out;
    }

    @Test
    void relaysALossyTransferAndPrintsItsCounters() throws Exception {
        PrintStream oldOut = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        UdpDriverConfig udp = UdpDriverConfig.defaults(InetAddress.getLoopbackAddress());
        try (UdpDriver a = new UdpDriver(EndpointConfig.defaults(KEY), udp, new SplittableRandom(1),
                new SystemNanoClock());
             UdpDriver b = new UdpDriver(EndpointConfig.defaults(KEY), udp, new SplittableRandom(2),
                     new SystemNanoClock());
             Arena arena = Arena.ofConfined()) {
            CompletableFuture<Integer> fabric = CompletableFuture.supplyAsync(() -> Main.execute("fabric",
                    "--a", join(a.localAddresses()), "--b", join(b.localAddresses()), "--loss", "5%",
                    "--duplicate", "0.01", "--duration-s", "4"));
            Pattern forA = Pattern.compile("for A \\(give these to A as B's addresses\\): (\\S+)");
            Pattern forB = Pattern.compile("for B \\(give these to B as A's addresses\\): (\\S+)");
            long deadline = System.nanoTime() + 30_000_000_000L;
            Matcher ma;
            Matcher mb;
            do {
                Thread.sleep(10);
                String text = captured.toString(StandardCharsets.UTF_8);
                ma = forA.matcher(text);
                mb = forB.matcher(text);
            } while (!(ma.find() && mb.find()) && System.nanoTime() < deadline && !fabric.isDone());
            long peer = a.addPeer(parse(ma.group(1)));
            b.addPeer(parse(mb.group(1)));
            Endpoint ea = a.endpoint();
            MemorySegment src = arena.allocate(1 << 20);
            SplittableRandom r = new SplittableRandom(3);
            for (long i = 0; i < src.byteSize(); i += 8) {
                src.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
            }
            MemorySegment dst = arena.allocate(1 << 20);
            int key = b.endpoint().registerRegion(dst, true);
            int conn = ea.connect(System.nanoTime(), peer);
            List<CompletionStatus> done = new ArrayList<>();
            boolean posted = false;
            while (done.isEmpty() && System.nanoTime() < deadline) {
                a.doWork();
                b.doWork();
                if (!posted && ea.isEstablished(conn)) {
                    ea.postWrite(conn, key, 0, src, 0, src.byteSize());
                    posted = true;
                }
                ea.pollCompletions((c, id, kind, status, bytes) -> done.add(status));
            }
            assertThat(done).containsExactly(CompletionStatus.OK);
            assertThat(dst.mismatch(src)).isEqualTo(-1);
            assertThat(fabric.get()).isZero();
            String text = captured.toString(StandardCharsets.UTF_8);
            Matcher counters = Pattern.compile("jccl fabric: received=(\\d+) forwarded=(\\d+) dropped_loss=(\\d+)")
                    .matcher(text);
            assertThat(counters.find()).as(text).isTrue();
            assertThat(Long.parseLong(counters.group(3))).isPositive();
            assertThat(Long.parseLong(counters.group(2))).isPositive();
        } finally {
            System.setOut(oldOut);
        }
    }

    @Test
    void aProxyTakesRegistrationsAndPrintsItsControlAddressAndCounters() throws Exception {
        PrintStream oldOut = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            CompletableFuture<Integer> fabric = CompletableFuture.supplyAsync(() -> Main.execute("fabric", "--proxy",
                    "--loss", "1%", "--rate", "125M", "--queue-bytes", "256k", "--ecn-bytes", "32k", "--flap",
                    "1:900:100:3", "--duration-s", "3"));
            Pattern control = Pattern.compile("control \\(endpoints register here\\): (\\S+)");
            long deadline = System.nanoTime() + 30_000_000_000L;
            Matcher m;
            do {
                Thread.sleep(10);
                m = control.matcher(captured.toString(StandardCharsets.UTF_8));
            } while (!m.find() && System.nanoTime() < deadline && !fabric.isDone());
            InetSocketAddress at = parse(m.group(1)).getFirst();
            List<InetSocketAddress> paths = List.of(new InetSocketAddress("127.0.0.1", 40001),
                    new InetSocketAddress("127.0.0.1", 40002));
            List<InetSocketAddress> fronts = RelayClient.register(at, paths, Duration.ofSeconds(10));
            assertThat(fronts).hasSize(2).isEqualTo(RelayClient.register(at, paths, Duration.ofSeconds(10)));
            assertThat(fabric.get()).isZero();
            String text = captured.toString(StandardCharsets.UTF_8);
            assertThat(text).contains("register_requests=2", "endpoints=1", "ecn_marked=0", "dropped_flap=0");
        } finally {
            System.setOut(oldOut);
        }
    }

    @Test
    void usageErrorsSayWhatIsWrong() {
        String[][] bad = {
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001,127.0.0.1:5002"},
            {"--a", "127.0.0.1", "--b", "127.0.0.1:5001"},
            {"--a", "127.0.0.1:70000", "--b", "127.0.0.1:5001"},
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001", "--black-hole", "3,0,10"},
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001", "--burst", "0.1,0.2"},
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001", "--loss", "2"},
            {"--b", "127.0.0.1:5001"},
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001", "--flap", "0:10"},
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001", "--flap", "1:10:10"},
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001", "--flap", "0:0:10:2"},
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001", "--flap", "0:10:10:-1"},
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001", "--rate", "fast"},
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001", "--rate", "0"},
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001", "--rate", "125M", "--queue-bytes", "100"},
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001", "--rate", "125M", "--ecn-bytes", "lots"},
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001", "--ecn-bytes", "10k"},
            {"--a", "127.0.0.1:5000", "--b", "127.0.0.1:5001", "--control-port", "7000"},
            {"--proxy", "--a", "127.0.0.1:5000"},
            {"--proxy", "--control-port", "70000"},
            {"--proxy", "--max-flows", "0"},
            {"--proxy", "--bind", "0.0.0.0"},
            {"--proxy", "--black-hole", "64,0,10"},
            {"--proxy", "--flap", "64:10:10"},
        };
        String[] why = {"same number of path addresses", "is not HOST:PORT", "is not 1-65535", "--black-hole '3,0,10'",
            "--burst needs three", "must be in [0, 1)", "Missing required option: '--a",
            "--flap '0:10' must be PATH:UP_MS:DOWN_MS[:CYCLES]", "--flap '1:10:10'", "--flap '0:0:10:2'",
            "--flap '0:10:10:-1'", "--rate 'fast'", "--rate '0'", "--queue-bytes '100'", "--ecn-bytes 'lots'",
            "--queue-bytes and --ecn-bytes need --rate", "--control-port and --max-flows need --proxy",
            "takes no --a or --b", "--control-port must be 0-65535", "--max-flows must be 1-65536",
            "--bind: with --proxy", "--black-hole '64,0,10'", "--flap '64:10:10'"};
        UsageErrors.assertEach(new String[] {"fabric"}, bad, why);
    }
}
