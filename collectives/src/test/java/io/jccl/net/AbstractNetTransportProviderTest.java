package io.jccl.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.jccl.net.AbstractNetTransportProvider.Reach;
import io.jccl.net.aeronipc.AeronIpcTransportProvider;
import io.jccl.net.aeronudp.AeronUdpTransportProvider;
import io.jccl.net.local.LocalTransportProvider;
import io.jccl.net.shm.ShmTransportProvider;
import io.jccl.net.tcp.TcpNetTransportProvider;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shared provider shell: each reach rule, and the collectives' providers' names, priorities and reaches. */
class AbstractNetTransportProviderTest {
    private static final PeerIdentity A = new PeerIdentity(0, "h1", "j1");
    private static final PeerIdentity SAME_JVM = new PeerIdentity(1, "h1", "j1");
    private static final PeerIdentity SAME_HOST = new PeerIdentity(1, "h1", "j2");
    private static final PeerIdentity OTHER_HOST = new PeerIdentity(1, "h2", "j3");

    @Test
    void eachReachConnectsItsPairsBothWays() {
        for (Reach r : Reach.values()) {
            for (PeerIdentity b : List.of(SAME_JVM, SAME_HOST, OTHER_HOST)) {
                assertThat(r.connects(A, b)).as("%s symmetric", r).isEqualTo(r.connects(b, A));
            }
        }
        assertThat(List.of(Reach.SAME_JVM.connects(A, SAME_JVM), Reach.SAME_JVM.connects(A, SAME_HOST),
                Reach.SAME_JVM.connects(A, OTHER_HOST))).containsExactly(true, false, false);
        assertThat(List.of(Reach.SAME_HOST_OTHER_JVM.connects(A, SAME_JVM),
                Reach.SAME_HOST_OTHER_JVM.connects(A, SAME_HOST), Reach.SAME_HOST_OTHER_JVM.connects(A, OTHER_HOST)))
                .containsExactly(false, true, false);
        assertThat(List.of(Reach.OTHER_JVM.connects(A, SAME_JVM), Reach.OTHER_JVM.connects(A, SAME_HOST),
                Reach.OTHER_JVM.connects(A, OTHER_HOST))).containsExactly(false, true, true);
        assertThat(List.of(Reach.ANY.connects(A, SAME_JVM), Reach.ANY.connects(A, SAME_HOST),
                Reach.ANY.connects(A, OTHER_HOST))).containsExactly(true, true, true);
    }

    @Test
    void theProvidersKeepTheirNamesPrioritiesAndReach() {
        record Expected(NetTransportProvider provider, String name, int priority, boolean sameJvm, boolean sameHost,
                        boolean otherHost) {
        }
        for (Expected e : List.of(
                new Expected(new LocalTransportProvider(), "local", 100, true, false, false),
                new Expected(new ShmTransportProvider(), "shm", 50, false, true, false),
                new Expected(new TcpNetTransportProvider(), "tcp", 10, true, true, true),
                new Expected(new AeronUdpTransportProvider(), "aeron-udp", 5, false, true, true),
                new Expected(new AeronIpcTransportProvider(), "aeron-ipc", 4, false, true, false))) {
            NetTransportProvider p = e.provider();
            assertThat(p.name()).isEqualTo(e.name());
            assertThat(p.priority()).as(e.name()).isEqualTo(e.priority());
            assertThat(List.of(p.canConnect(A, SAME_JVM), p.canConnect(A, SAME_HOST), p.canConnect(A, OTHER_HOST)))
                    .as(e.name()).containsExactly(e.sameJvm(), e.sameHost(), e.otherHost());
        }
    }
}
