package io.jccl.metaroce.verbs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Discovery through the real libibverbs where it is installed (the binding loads and links; zero devices is an
 * empty list), and through libraries that are missing or are not libibverbs (reported, never thrown).
 */
class RdmaDiscoveryTest {
    private static final String NO_SUCH_LIBRARY = "libjccl-test-no-such-ibverbs.so.1";

    private static boolean libibverbsInstalled() {
        try {
            Ibverbs.load(RdmaDiscovery.DEFAULT_LIBRARY);
            return true;
        } catch (Ibverbs.Unavailable e) {
            return false;
        }
    }

    private static void assumeLibibverbs() {
        assumeTrue(libibverbsInstalled(), RdmaDiscovery.DEFAULT_LIBRARY + " is not installed here (Debian: "
                + "libibverbs1; scripts/install-rdma-core.sh installs it): the binding cannot be loaded");
    }

    @Test
    void aMissingLibraryIsReportedAsNotInstalledNotThrown(@TempDir Path tmp) {
        RdmaDiscovery.Result r = RdmaDiscovery.discover(NO_SUCH_LIBRARY, tmp.resolve("class/infiniband"));
        assertThat(r.libraryState()).isEqualTo(RdmaDiscovery.LibraryState.NOT_INSTALLED);
        assertThat(r.libraryDetail()).isEqualTo("unavailable: " + NO_SUCH_LIBRARY + " not found");
        assertThat(r.devices()).isEmpty();
        assertThat(r.summary()).isEqualTo("RDMA devices: none; libibverbs: not installed");

        RdmaDiscovery.Result byPath = RdmaDiscovery.discover("/nonexistent/jccl/libibverbs.so.1", tmp);
        assertThat(byPath.libraryState()).isEqualTo(RdmaDiscovery.LibraryState.NOT_INSTALLED);
        assertThat(byPath.libraryDetail()).isEqualTo("unavailable: /nonexistent/jccl/libibverbs.so.1 not found");
    }

    @Test
    void withoutLibibverbsTheKernelsDevicesAreListedFromSysfsAsUnusable(@TempDir Path tmp) throws IOException {
        FakeSysfs sys = new FakeSysfs(tmp);
        sys.rdmaDevice("ionic_0", sys.pciFunction("0000:b5:00.0", 0x1dd8, 0x1002, "ionic"));
        RdmaDiscovery.Result r = RdmaDiscovery.discover(NO_SUCH_LIBRARY, sys.classDir);
        assertThat(r.devices()).singleElement().satisfies(d -> {
            assertThat(d.name()).isEqualTo("ionic_0");
            assertThat(d.kind()).isEqualTo(RdmaDeviceKind.PENSANDO_IONIC);
            assertThat(d.source()).isEqualTo(RdmaDevice.Source.SYSFS_ONLY);
            assertThat(d.usable()).isFalse();
            assertThat(d.problem()).isEqualTo("libibverbs is not installed");
        });
        assertThat(r.usableDevices()).isEmpty();
        assertThat(r.summary()).isEqualTo("RDMA devices: ionic_0 (AMD Pensando (ionic), vendor 0x1dd8 part 0x1002; "
                + "libibverbs is not installed); libibverbs: not installed");
    }

    @Test
    void aLibraryThatIsNotLibibverbsIsUnusable(@TempDir Path tmp) {
        RdmaDiscovery.Result r = RdmaDiscovery.discover("libc.so.6", tmp);
        assertThat(r.libraryState()).isEqualTo(RdmaDiscovery.LibraryState.UNUSABLE);
        assertThat(r.libraryDetail()).isEqualTo("unavailable: libc.so.6 has no ibv_get_device_list (is it "
                + "libibverbs?)");
        assertThat(r.summary()).endsWith("; libibverbs: unavailable: libc.so.6 has no ibv_get_device_list (is it "
                + "libibverbs?)");
    }

    @Test
    void aBlankLibraryNameIsRefused(@TempDir Path tmp) {
        assertThatThrownBy(() -> RdmaDiscovery.discover(" ", tmp))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("JCCL_IBVERBS_LIBRARY is empty: name a libibverbs soname or path");
    }

    @Test
    void theBindingLoadsAndListsDevicesWhenLibibverbsIsInstalled() {
        assumeLibibverbs();
        RdmaDiscovery.Result r = RdmaDiscovery.discover(RdmaDiscovery.DEFAULT_LIBRARY);
        assertThat(r.libraryState()).isEqualTo(RdmaDiscovery.LibraryState.LOADED);
        assertThat(r.libraryDetail()).isEqualTo("loaded");
        for (RdmaDevice d : r.devices()) {
            assertThat(d.name()).isNotBlank();
            if (d.usable()) {   // listed, opened and queried through the binding
                assertThat(d.ports()).as("%s has ports", d.name()).isNotEmpty();
                assertThat(d.verbsVendorId()).as("%s vendor", d.name()).isNotNegative();
            }
        }
    }

    @Test
    void zeroDevicesIsAnEmptyList() {
        assumeLibibverbs();
        assumeTrue(Files.notExists(SysfsRdma.CLASS_DIR), "this host has RDMA devices (" + SysfsRdma.CLASS_DIR
                + "): the zero-device case needs a host without");
        RdmaDiscovery.Result r = RdmaDiscovery.discover(RdmaDiscovery.DEFAULT_LIBRARY);
        assertThat(r.devices()).isEmpty();
        assertThat(r.usableDevices()).isEmpty();
        assertThat(r.summary()).startsWith("RDMA devices: none").endsWith("; libibverbs: loaded");
    }

    @Test
    void aKernelDeviceLibibverbsDoesNotListIsReportedWithTheReason(@TempDir Path tmp) throws IOException {
        assumeLibibverbs();
        RdmaDiscovery.Result real = RdmaDiscovery.discover(RdmaDiscovery.DEFAULT_LIBRARY);
        assumeTrue(real.devices().stream().noneMatch(d -> d.name().equals("ionic_9")), "a real ionic_9 exists");
        FakeSysfs sys = new FakeSysfs(tmp);
        sys.rdmaDevice("ionic_9", sys.pciFunction("0000:b5:00.0", 0x1dd8, 0x1002, "ionic"));
        RdmaDiscovery.Result r = RdmaDiscovery.discover(RdmaDiscovery.DEFAULT_LIBRARY, sys.classDir);
        RdmaDevice ionic = r.devices().stream().filter(d -> d.name().equals("ionic_9")).findFirst().orElseThrow();
        assertThat(ionic.source()).isEqualTo(RdmaDevice.Source.SYSFS_ONLY);
        assertThat(ionic.kind()).isEqualTo(RdmaDeviceKind.PENSANDO_IONIC);
        assertThat(ionic.problem()).isEqualTo("libibverbs does not list it: this rdma-core has no user-space provider "
                + "for driver ionic (ibverbs-providers)");
    }

    @Test
    void theLibraryComesFromTheOptionsThenTheEnvironment() {
        assertThat(RdmaDiscovery.libraryFrom(Map.of(RdmaDiscovery.LIBRARY_VARIABLE, " /opt/lib/libibverbs.so.1 ")))
                .isEqualTo("/opt/lib/libibverbs.so.1");
        String env = System.getenv(RdmaDiscovery.LIBRARY_VARIABLE);
        assertThat(RdmaDiscovery.libraryFrom(Map.of())).isEqualTo(env == null || env.isBlank()
                ? "libibverbs.so.1" : env.strip());
    }

    @Test
    void cStringsAndNetworkOrder() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(8);
            s.setString(0, "fw1.2");
            assertThat(RdmaDiscovery.cString(s, 0, 8)).isEqualTo("fw1.2");
            s.fill((byte) 'x');
            assertThat(RdmaDiscovery.cString(s, 0, 8)).as("no NUL: bounded").isEqualTo("xxxxxxxx");
            MemorySegment guid = arena.allocate(8);
            byte[] wire = {0x00, 0x02, (byte) 0xc9, (byte) 0xff, (byte) 0xfe, 0x0a, 0x0b, 0x0c};
            MemorySegment.copy(wire, 0, guid, ValueLayout.JAVA_BYTE, 0, 8);
            assertThat(RdmaDiscovery.fromNetworkOrder(guid.get(ValueLayout.JAVA_LONG, 0)))
                    .isEqualTo(0x0002c9fffe0a0b0cL);
        }
        assertThat(RdmaDiscovery.transportName(0)).isEqualTo("InfiniBand");
        assertThat(RdmaDiscovery.transportName(1)).isEqualTo("iWARP");
        assertThat(RdmaDiscovery.transportName(4)).isEqualTo("unspecified");
        assertThat(RdmaDiscovery.transportName(5)).isEqualTo("unknown(5)");
    }
}
