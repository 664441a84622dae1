package io.jccl.metaroce.net;

import io.jccl.metaroce.offload.FakeNicProvider;
import io.jccl.metaroce.offload.OffloadDecision;
import io.jccl.metaroce.offload.OffloadProvider;
import io.jccl.metaroce.offload.OffloadSelector;
import io.jccl.metaroce.offload.OffloadSetting;
import io.jccl.metaroce.offload.TestDevices;
import io.jccl.metaroce.verbs.RdmaDiscovery;
import io.jccl.net.NetException;
import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportConformanceTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The offload seam end to end: the transports' conformance suite with every even rank's connections carried by an
 * {@link OffloadProvider} (a fake NIC whose data path is the UDP driver behind counters) and every odd rank on
 * software UDP, so each link crosses from one to the other; plus the decision and its one log line per transport,
 * and what happens when a provider cannot open its data path.
 */
@Tag("integration")
class OffloadedMetaRoceTransportTest extends NetTransportConformanceTest {
    /** Every decision line the transports of a test logged. */
    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final FakeNicProvider nic = FakeNicProvider.pensando("fake-nic", 10);

    @Override
    protected NetTransport createTransport(int rank, int size) {
        return rank % 2 == 0 ? offloaded(rank, Map.of()) : software(rank, Map.of());
    }

    private OffloadSelector selector(List<OffloadProvider> providers) {
        return new OffloadSelector(providers, library -> RdmaDiscovery.Result.of(List.of(TestDevices.mlx5(),
                TestDevices.ionic0())), logged::add, () -> true);
    }

    private MetaRoceNetTransport offloaded(int rank, Map<String, String> options) {
        return create(rank, options, selector(List.of(nic)));
    }

    private MetaRoceNetTransport software(int rank, Map<String, String> options) {
        return create(rank, options, selector(List.of()));
    }

    private static MetaRoceNetTransport create(int rank, Map<String, String> extra, OffloadSelector selector) {
        Map<String, String> options = new HashMap<>(Map.of("JCCL_METAROCE_PATHS", "4"));
        options.putAll(extra);
        return new MetaRoceNetTransport(loopbackContext(rank, 4, MetaRoceTransportConformanceTest.CONNECT_TIMEOUT,
                options), selector);
    }

    @Test
    void anOffloadedRankCarriesItsConnectionsThroughTheProviderAndTalksToASoftwareRank() {
        MetaRoceNetTransport nicRank = track(offloaded(0, Map.of()));
        MetaRoceNetTransport udpRank = track(software(1, Map.of()));
        assertThat(nicRank.offloadDecision().offloaded()).isTrue();
        assertThat(nicRank.offloadDecision().device().name()).isEqualTo("ionic_0");
        assertThat(udpRank.offloadDecision().offloaded()).isFalse();
        assertThat(nic.opened).as("one data path per endpoint: accepting and initiating").hasSize(2);

        assertMessageGoesThrough(connect(nicRank, udpRank), 100_000, 1);   // the NIC rank initiates
        assertMessageGoesThrough(connect(udpRank, nicRank), 100_000, 2);   // the NIC rank accepts
        for (FakeNicProvider.CountingDataPath path : nic.opened) {
            assertThat(path.device.name()).isEqualTo("ionic_0");
            assertThat(path.cycles.get()).as("driven by the transport").isPositive();
            assertThat(path.datagramsSent()).as("sent through the provider's data path").isPositive();
            assertThat(path.datagramsReceived()).as("received through it").isPositive();
        }
        assertThat(nic.opened.stream().mapToLong(p -> p.peers.get()).sum()).as("the peer added on connect")
                .isEqualTo(1);
        nicRank.close();
        assertThat(nic.opened).allMatch(p -> p.closed, "closed with the transport");
    }

    @Test
    void eachTransportLogsExactlyOneDecisionLine() {
        track(offloaded(0, Map.of()));
        track(software(1, Map.of()));
        track(offloaded(2, Map.of(OffloadSetting.VARIABLE, "off")));
        assertThat(logged).containsExactly(
                "MetaRoCE data path: offloaded to fake-nic on ionic_0 (vendor 0x1dd8 part 0x1002): fake MetaRoCE "
                        + "firmware",
                "MetaRoCE data path: software UDP (RDMA devices: mlx5_0 (NVIDIA/Mellanox (mlx5), vendor 0x15b3 part "
                        + "0x101b), ionic_0 (AMD Pensando (ionic), vendor 0x1dd8 part 0x1002); libibverbs: loaded; "
                        + "offload providers: none installed)",
                "MetaRoCE data path: software UDP (JCCL_METAROCE_OFFLOAD=off)");
        assertThat(nic.opened).hasSize(2);
    }

    @Test
    void aProviderThatCannotOpenFallsBackToSoftwareUnderAutoAndFailsWhenNamed() {
        nic.failOpen = new IllegalStateException("no MetaRoCE queue pairs left");
        MetaRoceNetTransport fellBack = track(offloaded(0, Map.of()));
        OffloadDecision d = fellBack.offloadDecision();
        assertThat(d.offloaded()).isFalse();
        assertThat(logged).containsExactly("MetaRoCE data path: software UDP (offload provider fake-nic could not "
                + "open its data path on ionic_0: no MetaRoCE queue pairs left)");
        assertMessageGoesThrough(connect(fellBack, track(software(1, Map.of()))), 1000, 3);

        assertThatThrownBy(() -> offloaded(2, Map.of(OffloadSetting.VARIABLE, "fake-nic")))
                .isInstanceOf(NetException.class)
                .hasMessage("metaroce rank 2: offload provider fake-nic could not open its data path on ionic_0: no "
                        + "MetaRoCE queue pairs left (JCCL_METAROCE_OFFLOAD=fake-nic)");
    }

    @Test
    void aBadOrUnknownOffloadSettingFailsTransportCreationNamingIt() {
        assertThatThrownBy(() -> MetaRoceTransportConformanceTest.metaroce(0,
                Map.of(OffloadSetting.VARIABLE, "no-such-nic")))
                .isInstanceOf(NetException.class)
                .hasMessageContaining("JCCL_METAROCE_OFFLOAD=no-such-nic names no installed offload provider "
                        + "(installed: test-never-accepts)");
        assertThatThrownBy(() -> MetaRoceTransportConformanceTest.metaroce(0,
                Map.of(OffloadSetting.VARIABLE, "test-never-accepts")))
                .isInstanceOf(NetException.class)
                .hasMessageContaining("JCCL_METAROCE_OFFLOAD=test-never-accepts: the provider declined: a test "
                        + "provider that never accepts");
        assertThatThrownBy(() -> MetaRoceTransportConformanceTest.metaroce(0, Map.of(OffloadSetting.VARIABLE, "a b")))
                .isInstanceOf(NetException.class).hasMessageContaining("JCCL_METAROCE_OFFLOAD='a b' is invalid");
    }
}
