package io.jccl.metaroce.verbs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Reading the kernel driver and PCI ids of RDMA devices from a sysfs stand-in. */
class SysfsRdmaTest {
    @Test
    void pciIdsAndDriversOfDirectAndAuxiliaryDevices(@TempDir Path tmp) throws IOException {
        FakeSysfs sys = new FakeSysfs(tmp);
        // mlx5: the RDMA device's parent is the PCI function itself.
        sys.rdmaDevice("mlx5_0", sys.pciFunction("0000:3b:00.0", 0x15b3, 0x101b, "mlx5_core"));
        // ionic: an auxiliary device (ionic.rdma.0, bound to ionic_rdma) below the PCI function bound to ionic.
        Path pci = sys.pciFunction("0000:b5:00.0", 0x1dd8, 0x1002, "ionic");
        Path aux = Files.createDirectories(pci.resolve("ionic.rdma.0"));
        Files.createSymbolicLink(aux.resolve("driver"), Files.createDirectories(tmp.resolve("bus/auxiliary/drivers/"
                + "ionic_rdma.rdma")));
        sys.rdmaDevice("ionic_0", aux);
        // Soft-RoCE: no parent device at all.
        sys.rdmaDevice("rxe0", null);

        assertThat(SysfsRdma.read(sys.classDir)).containsExactly(
                new SysfsRdma.Device("ionic_0", "ionic", 0x1dd8, 0x1002),
                new SysfsRdma.Device("mlx5_0", "mlx5_core", 0x15b3, 0x101b),
                new SysfsRdma.Device("rxe0", "", -1, -1));
    }

    @Test
    void noClassDirectoryIsNoDevices(@TempDir Path tmp) {
        assertThat(SysfsRdma.read(tmp.resolve("class/infiniband"))).isEmpty();
    }

    @Test
    void idFilesThatAreNotHexadecimalAreUnknown(@TempDir Path tmp) throws IOException {
        assertThat(SysfsRdma.hexFile(Files.writeString(tmp.resolve("a"), "0x1DD8\n"))).isEqualTo(0x1dd8);
        assertThat(SysfsRdma.hexFile(Files.writeString(tmp.resolve("b"), "pensando\n"))).isEqualTo(-1);
        assertThat(SysfsRdma.hexFile(tmp.resolve("missing"))).isEqualTo(-1);
    }
}
