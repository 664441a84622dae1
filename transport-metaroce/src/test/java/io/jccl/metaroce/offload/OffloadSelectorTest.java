package io.jccl.metaroce.offload;

import io.jccl.metaroce.verbs.RdmaDevice;
import io.jccl.metaroce.verbs.RdmaDiscovery;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Provider selection under {@code JCCL_METAROCE_OFFLOAD} with fake providers and a fake discovery: auto, off, a name,
 * an unknown name, probes that decline or throw, and the decision line of each.
 */
class OffloadSelectorTest {
    private final List<String> logged = new ArrayList<>();
    private final AtomicInteger discoveries = new AtomicInteger();
    private final List<String> librariesAsked = new ArrayList<>();

    private OffloadSelector selector(RdmaDiscovery.Result found, OffloadProvider... providers) {
        return new OffloadSelector(List.of(providers), library -> {
            discoveries.incrementAndGet();
            librariesAsked.add(library);
            return found;
        }, logged::add, () -> true);
    }

    private static Map<String, String> offload(String value) {
        return Map.of(OffloadSetting.VARIABLE, value);
    }

    @Test
    void autoWithoutProvidersIsSoftwareUdpAndTheLineSaysWhatWasFound() {
        OffloadSelector s = selector(TestDevices.noLibibverbs());
        OffloadDecision d = s.decide(Map.of());
        assertThat(d.offloaded()).isFalse();
        assertThat(d.line()).isEqualTo("MetaRoCE data path: software UDP (RDMA devices: none; libibverbs: not "
                + "installed; offload providers: none installed)");
        s.log(d);
        assertThat(logged).containsExactly(d.line());
    }

    @Test
    void autoWithoutProvidersDoesNotDiscoverWhenTheLineIsNotShown() {
        OffloadSelector s = new OffloadSelector(List.of(), library -> {
            discoveries.incrementAndGet();
            return TestDevices.noLibibverbs();
        }, logged::add, () -> false);
        assertThat(s.decide(Map.of()).line()).isEqualTo("MetaRoCE data path: software UDP (offload providers: none "
                + "installed)");
        assertThat(discoveries).hasValue(0);
    }

    @Test
    void offNeitherDiscoversNorProbes() {
        FakeNicProvider nic = FakeNicProvider.pensando("fake-nic", 10);
        OffloadDecision d = selector(RdmaDiscovery.Result.of(List.of(TestDevices.ionic0())), nic)
                .decide(offload("OFF"));
        assertThat(d.offloaded()).isFalse();
        assertThat(d.line()).isEqualTo("MetaRoCE data path: software UDP (JCCL_METAROCE_OFFLOAD=off)");
        assertThat(discoveries).hasValue(0);
        assertThat(nic.probes).hasValue(0);
    }

    @Test
    void autoTakesTheHighestPriorityProviderWhoseProbeAccepts() {
        FakeNicProvider low = FakeNicProvider.pensando("low", 5);
        FakeNicProvider high = FakeNicProvider.pensando("high", 10);
        FakeNicProvider higherButDeclines = new FakeNicProvider("picky", 20,
                devices -> OffloadProvider.Probe.decline("wants firmware 9"));
        OffloadDecision d = selector(RdmaDiscovery.Result.of(List.of(TestDevices.mlx5(), TestDevices.ionic0())),
                low, high, higherButDeclines).decide(offload("auto"));
        assertThat(d.provider()).isSameAs(high);
        assertThat(d.device().name()).isEqualTo("ionic_0");
        assertThat(d.line()).isEqualTo("MetaRoCE data path: offloaded to high on ionic_0 (vendor 0x1dd8 part 0x1002):"
                + " fake MetaRoCE firmware");
        assertThat(higherButDeclines.probes).hasValue(1);
        assertThat(low.probes).as("not asked once a higher one accepted").hasValue(0);
    }

    @Test
    void equalPrioritiesAreTriedInNameOrder() {
        FakeNicProvider b = FakeNicProvider.pensando("b-nic", 1);
        FakeNicProvider a = FakeNicProvider.pensando("a-nic", 1);
        OffloadSelector s = selector(RdmaDiscovery.Result.of(List.of(TestDevices.ionic0())), b, a);
        assertThat(s.providers()).containsExactly(a, b);
        assertThat(s.decide(Map.of()).provider()).isSameAs(a);
    }

    @Test
    void autoFallsBackToSoftwareWhenEveryProbeDeclinesAndSaysWhyEach() {
        FakeNicProvider nic = FakeNicProvider.pensando("fake-nic", 10);
        FakeNicProvider other = new FakeNicProvider("other-nic", 3,
                devices -> OffloadProvider.Probe.decline("no device of mine"));
        OffloadDecision d = selector(RdmaDiscovery.Result.of(List.of(TestDevices.mlx5())), nic, other)
                .decide(Map.of());
        assertThat(d.offloaded()).isFalse();
        assertThat(d.line()).isEqualTo("MetaRoCE data path: software UDP (RDMA devices: mlx5_0 (NVIDIA/Mellanox "
                + "(mlx5), vendor 0x15b3 part 0x101b); libibverbs: loaded; offload providers declined: fake-nic: no "
                + "Pensando device; other-nic: no device of mine)");
    }

    @Test
    void zeroDevicesMeansSoftwareUdpWhenTheProviderNeedsOne() {
        FakeNicProvider nic = FakeNicProvider.pensando("fake-nic", 10);
        OffloadDecision d = selector(RdmaDiscovery.Result.of(List.of()), nic).decide(Map.of());
        assertThat(d.offloaded()).isFalse();
        assertThat(d.line()).isEqualTo("MetaRoCE data path: software UDP (RDMA devices: none; libibverbs: loaded; "
                + "offload providers declined: fake-nic: no Pensando device)");
    }

    @Test
    void aNamedProviderIsUsedEvenBelowAnotherThatAccepts() {
        FakeNicProvider first = FakeNicProvider.pensando("first", 50);
        FakeNicProvider second = FakeNicProvider.pensando("second", 1);
        OffloadDecision d = selector(RdmaDiscovery.Result.of(List.of(TestDevices.ionic0())), first, second)
                .decide(offload("Second"));
        assertThat(d.provider()).isSameAs(second);
        assertThat(d.setting()).isEqualTo(new OffloadSetting(OffloadSetting.Mode.NAMED, "second"));
        assertThat(first.probes).hasValue(0);
    }

    @Test
    void anUnknownNameIsAnErrorListingWhatIsInstalled() {
        OffloadSelector s = selector(RdmaDiscovery.Result.of(List.of()), FakeNicProvider.pensando("fake-nic", 1));
        assertThatThrownBy(() -> s.decide(offload("ionic-metaroce")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("JCCL_METAROCE_OFFLOAD=ionic-metaroce names no installed offload provider (installed: "
                        + "fake-nic): use auto, off, or the name of an installed provider");
        assertThatThrownBy(() -> selector(RdmaDiscovery.Result.of(List.of())).decide(offload("x")))
                .hasMessageContaining("(none is installed)");
        assertThat(discoveries).hasValue(0);
    }

    @Test
    void aNamedProviderThatDeclinesIsAnErrorNotASilentFallback() {
        OffloadSelector s = selector(RdmaDiscovery.Result.of(List.of(TestDevices.mlx5())),
                FakeNicProvider.pensando("fake-nic", 1));
        assertThatThrownBy(() -> s.decide(offload("fake-nic")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("JCCL_METAROCE_OFFLOAD=fake-nic: the provider declined: no Pensando device "
                        + "(RDMA devices: mlx5_0");
    }

    @Test
    void aProbeThatThrowsOrAnswersNothingDeclines() {
        FakeNicProvider throwing = new FakeNicProvider("throws", 9, devices -> {
            throw new IllegalStateException("firmware query timed out");
        });
        FakeNicProvider silent = new FakeNicProvider("silent", 8, devices -> null);
        FakeNicProvider nic = FakeNicProvider.pensando("fake-nic", 1);
        OffloadDecision d = selector(RdmaDiscovery.Result.of(List.of(TestDevices.ionic0())), throwing, silent, nic)
                .decide(Map.of());
        assertThat(d.provider()).isSameAs(nic);
        OffloadDecision none = selector(RdmaDiscovery.Result.of(List.of(TestDevices.ionic0())), throwing, silent)
                .decide(Map.of());
        assertThat(none.line()).contains("throws: its probe failed: java.lang.IllegalStateException: firmware query "
                + "timed out; silent: its probe answered nothing");
    }

    @Test
    void theLibraryToLoadComesFromTheOptions() {
        selector(RdmaDiscovery.Result.of(List.of()), FakeNicProvider.pensando("fake-nic", 1))
                .decide(Map.of(RdmaDiscovery.LIBRARY_VARIABLE, "/opt/rdma-core/lib/libibverbs.so.1"));
        assertThat(librariesAsked).containsExactly("/opt/rdma-core/lib/libibverbs.so.1");
    }

    @Test
    void providersWithBadOrDuplicateNamesAreRefused() {
        FakeNicProvider a = FakeNicProvider.pensando("same", 1);
        FakeNicProvider b = FakeNicProvider.pensando("same", 2);
        assertThatThrownBy(() -> selector(RdmaDiscovery.Result.of(List.of()), a, b))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("two offload providers are named 'same'");
        assertThatThrownBy(() -> selector(RdmaDiscovery.Result.of(List.of()), FakeNicProvider.pensando("Auto", 1)))
                .hasMessageContaining("an offload provider's name must be");
        assertThatThrownBy(() -> selector(RdmaDiscovery.Result.of(List.of()), FakeNicProvider.pensando("off", 1)))
                .hasMessageContaining("not auto or off");
    }

    @Test
    void serviceLoaderFindsTheRegisteredProviders() {
        OffloadSelector installed = OffloadSelector.installed();
        assertThat(installed.providers()).extracting(OffloadProvider::name)
                .containsExactly(NeverAcceptingTestProvider.NAME);
        OffloadDecision d = installed.decide(Map.of());
        assertThat(d.offloaded()).isFalse();
        assertThat(d.line()).startsWith("MetaRoCE data path: software UDP (RDMA devices: ")
                .endsWith("; offload providers declined: test-never-accepts: a test provider that never accepts)");
    }

    @Test
    void probeResultsAreChecked() {
        RdmaDevice ionic = TestDevices.ionic0();
        assertThatThrownBy(() -> OffloadProvider.Probe.accept(null, "why"))
                .hasMessage("an accepting probe must name the device it would use");
        assertThatThrownBy(() -> OffloadProvider.Probe.decline(" ")).hasMessage("a probe result needs a reason");
        assertThat(new OffloadProvider.Probe(false, ionic, "no").device()).isNull();
    }
}
