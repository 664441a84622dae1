package io.jccl.cli.tools;

import io.jccl.cli.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code jccl devices}: what it prints without libibverbs, with a kernel device it cannot use, and on this host. */
class DevicesCommandTest {
    private static final String NO_SUCH_LIBRARY = "libjccl-test-no-such-ibverbs.so.1";

    @Test
    void withoutLibibverbsItSaysSoAndTheDataPathIsSoftwareUdp(@TempDir Path tmp) {
        CliRun r = CliRun.of("devices", "--library", NO_SUCH_LIBRARY, "--sysfs-class-dir",
                tmp.resolve("class/infiniband").toString());
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).isEqualTo(String.join(System.lineSeparator(),
                "libibverbs: unavailable: " + NO_SUCH_LIBRARY + " not found (Debian: scripts/install-rdma-core.sh)",
                "RDMA devices: none",
                "Offload providers: none installed",
                "MetaRoCE data path: software UDP (RDMA devices: none; libibverbs: not installed; offload providers: "
                        + "none installed)  [JCCL_METAROCE_OFFLOAD=auto]",
                ""));
    }

    @Test
    void aPensandoDeviceOnlyTheKernelKnowsIsListedWithWhyItCannotBeUsed(@TempDir Path tmp) throws IOException {
        Path pci = Files.createDirectories(tmp.resolve("devices/pci0000:00/0000:b5:00.0"));
        Files.writeString(pci.resolve("vendor"), "0x1dd8\n");
        Files.writeString(pci.resolve("device"), "0x1002\n");
        Files.createSymbolicLink(pci.resolve("driver"), Files.createDirectories(tmp.resolve("bus/pci/drivers/ionic")));
        Path aux = Files.createDirectories(pci.resolve("ionic.rdma.0"));
        Path classDir = Files.createDirectories(tmp.resolve("class/infiniband"));
        Path dev = Files.createDirectories(tmp.resolve("devices/virtual/infiniband/ionic_0"));
        Files.createSymbolicLink(dev.resolve("device"), aux);
        Files.createSymbolicLink(classDir.resolve("ionic_0"), dev);

        CliRun r = CliRun.of("devices", "--library", NO_SUCH_LIBRARY, "--sysfs-class-dir", classDir.toString());
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("RDMA devices: 1 (0 usable through libibverbs)")
                .contains("  ionic_0  AMD Pensando (ionic)  vendor 0x1dd8 part 0x1002  driver ionic  (sysfs only)")
                .contains("    not usable: libibverbs is not installed")
                .contains("MetaRoCE data path: software UDP (RDMA devices: ionic_0 (AMD Pensando (ionic), vendor "
                        + "0x1dd8 part 0x1002; libibverbs is not installed); libibverbs: not installed; offload "
                        + "providers: none installed)");
    }

    @Test
    void onThisHostItAlwaysAnswers() {
        CliRun r = CliRun.of("devices");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).startsWith("libibverbs: ").contains("RDMA devices: ")
                .contains("MetaRoCE data path: software UDP (");
    }
}
