package io.jccl.metaroce.protocol;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A connection over fewer paths than its endpoint has ({@link Endpoint#connect(long, long, byte[], int, int)}, as
 * the transport opens towards a peer on its own host): the handshake carries the count, both ends use only those
 * paths, and a transfer through loss, duplication and reordering arrives intact. Seeded, virtual time.
 */
class ConnectionPathCountTest {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();

    @Test
    void bothEndsUseOnlyThePathsTheInitiatorAskedFor() {
        for (int paths : new int[] {1, 3}) {
            for (long seed = 1; seed <= 3; seed++) {
                Endpoint a = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(seed));
                Endpoint b = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(seed + 100));
                MiniFabric f = new MiniFabric(seed, a, b);
                f.loss = 0.03;
                f.duplicate = 0.02;
                f.jitterNs = 20_000;
                int ca = a.connect(0, 1, null, 4096, paths);
                assertThat(f.run(() -> a.isEstablished(ca), 1_000_000_000L)).isTrue();
                int cb = b.connectionTo(0);
                assertThat(a.connection(ca).paths()).isEqualTo(paths);
                assertThat(b.connection(cb).paths()).as("the acceptor follows the handshake").isEqualTo(paths);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment src = TestData.pattern(arena.allocate(400_000), (int) seed);
                    MemorySegment region = arena.allocate(400_000);
                    int key = b.registerRegion(region, true);
                    a.postWrite(ca, key, 0, src, 0, 400_000);
                    int[] done = new int[1];
                    assertThat(f.run(() -> {
                        a.pollCompletions((c, id, k, s, n) -> done[0] += s == CompletionStatus.OK ? 1 : 100);
                        return done[0] > 0;
                    }, 20_000_000_000L)).as("paths %d seed %d: %s", paths, seed, a.counters()).isTrue();
                    assertThat(done[0]).isEqualTo(1);
                    assertThat(region.mismatch(src)).isEqualTo(-1L);
                }
                assertThat(f.pathsUsed).as("paths %d seed %d: paths any datagram took", paths, seed)
                        .isEqualTo((1L << paths) - 1);
            }
        }
    }

    @Test
    void anAcceptorRefusesAHandshakeAskingMorePathsThanItHas() {
        Endpoint a = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(7));
        Endpoint b = new Endpoint(EndpointConfig.defaults(KEY).withPaths(2), new SplittableRandom(8));
        MiniFabric f = new MiniFabric(7, a, b);
        int tooMany = a.connect(0, 1, null, 4096, 3);
        assertThat(f.run(() -> a.isEstablished(tooMany), 200_000_000L)).as("never accepted").isFalse();
        assertThat(b.counters().drops(DropReason.BAD_PATH)).as("every INIT refused").isPositive();
        assertThat(b.connectionTo(0)).as("no connection opened on the acceptor").isEqualTo(-1);

        a.close(f.now, tooMany);
        int fits = a.connect(f.now, 1, null, 4096, 2);
        assertThat(f.run(() -> a.isEstablished(fits), 1_000_000_000L)).isTrue();
        assertThat(b.connection(b.connectionTo(0)).paths()).isEqualTo(2);
    }

    @Test
    void aPathCountOutsideTheEndpointsIsRefused() {
        Endpoint a = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(1));
        int most = EndpointConfig.defaults(KEY).paths();
        assertThatThrownBy(() -> a.connect(0, 1, null, 4096, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("paths=0").hasMessageContaining("1-" + most);
        assertThatThrownBy(() -> a.connect(0, 1, null, 4096, most + 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("paths=" + (most + 1));
    }
}
