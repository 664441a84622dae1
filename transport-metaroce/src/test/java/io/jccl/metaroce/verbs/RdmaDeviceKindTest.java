package io.jccl.metaroce.verbs;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.jccl.metaroce.verbs.RdmaDeviceKind.MELLANOX_MLX5;
import static io.jccl.metaroce.verbs.RdmaDeviceKind.OTHER;
import static io.jccl.metaroce.verbs.RdmaDeviceKind.PENSANDO_IONIC;
import static io.jccl.metaroce.verbs.RdmaDeviceKind.SOFT_IWARP_SIW;
import static io.jccl.metaroce.verbs.RdmaDeviceKind.SOFT_ROCE_RXE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Recognising devices, and how devices and ports read for people. */
class RdmaDeviceKindTest {
    @Test
    void pensandoIsRecognisedByItsPciVendorWhateverItIsCalled() {
        assertThat(RdmaDeviceKind.classify("roce0", "", 0x1dd8, -1)).isEqualTo(PENSANDO_IONIC);
        // ionic_rdma reports the PCI ids through ibv_query_device too.
        assertThat(RdmaDeviceKind.classify("roce0", "", -1, 0x1dd8)).isEqualTo(PENSANDO_IONIC);
        assertThat(RdmaDeviceKind.classify("roce0", "ionic", -1, -1)).isEqualTo(PENSANDO_IONIC);
        assertThat(RdmaDeviceKind.classify("ionic_3", "", -1, -1)).isEqualTo(PENSANDO_IONIC);
    }

    @Test
    void othersAreRecognisedOrReportedAsOther() {
        assertThat(RdmaDeviceKind.classify("mlx5_0", "mlx5_core", 0x15b3, RdmaDeviceKind.OUI_MELLANOX))
                .isEqualTo(MELLANOX_MLX5);
        assertThat(RdmaDeviceKind.classify("rxe0", "", -1, 0xffffff)).isEqualTo(SOFT_ROCE_RXE);
        assertThat(RdmaDeviceKind.classify("roce_lo", "", -1, RdmaDeviceKind.RXE_VENDOR_ID)).isEqualTo(SOFT_ROCE_RXE);
        assertThat(RdmaDeviceKind.classify("siw0", "", -1, -1)).isEqualTo(SOFT_IWARP_SIW);
        assertThat(RdmaDeviceKind.classify("bnxt_re0", "bnxt_en", 0x14e4, 0x14e4)).isEqualTo(OTHER);
        // The PCI vendor wins over a misleading name.
        assertThat(RdmaDeviceKind.classify("mlx5_0", "", 0x1dd8, -1)).isEqualTo(PENSANDO_IONIC);
    }

    @Test
    void portFieldsBecomeWords() {
        assertThat(RdmaPort.mtuBytes(1)).isEqualTo(256);
        assertThat(RdmaPort.mtuBytes(3)).isEqualTo(1024);
        assertThat(RdmaPort.mtuBytes(5)).isEqualTo(4096);
        assertThat(RdmaPort.mtuBytes(0)).isZero();
        assertThat(RdmaPort.mtuBytes(6)).isZero();
        assertThat(RdmaPort.stateName(4)).isEqualTo("ACTIVE");
        assertThat(RdmaPort.stateName(1)).isEqualTo("DOWN");
        assertThat(RdmaPort.stateName(9)).isEqualTo("UNKNOWN(9)");
        assertThat(RdmaPort.linkLayerName(2)).isEqualTo("Ethernet");
        assertThat(RdmaPort.linkLayerName(1)).isEqualTo("InfiniBand");
        assertThat(RdmaPort.linkLayerName(0)).isEqualTo("unspecified");
        assertThat(RdmaPort.linkLayerName(-1)).isEqualTo("unknown(-1)");
        assertThat(RdmaPort.stateName(0)).isEqualTo("NOP");
        assertThat(RdmaPort.stateName(5)).isEqualTo("ACTIVE_DEFER");
        assertThat(new RdmaPort(1, "ACTIVE", 4096, "Ethernet")).hasToString("port 1: ACTIVE, Ethernet, active MTU "
                + "4096 bytes");
        assertThatThrownBy(() -> new RdmaPort(0, "ACTIVE", 0, "Ethernet")).hasMessage("an RDMA port number is 1-255, "
                + "got 0");
    }

    @Test
    void devicesReadForPeople() {
        RdmaDevice ionic = new RdmaDevice("ionic_0", PENSANDO_IONIC, RdmaDevice.Source.LIBIBVERBS, "ionic", 0x1dd8,
                0x1002, 0x1dd8, 0x1002, 1, "", 0x0002c9fffe0a0b0cL, 4096, "InfiniBand",
                List.of(new RdmaPort(1, "ACTIVE", 4096, "Ethernet")), "");
        assertThat(ionic.usable()).isTrue();
        assertThat(ionic.hasActiveEthernetPort()).isTrue();
        assertThat(ionic.shortText()).isEqualTo("ionic_0 (vendor 0x1dd8 part 0x1002)");
        assertThat(ionic.summary()).isEqualTo("ionic_0 (AMD Pensando (ionic), vendor 0x1dd8 part 0x1002)");
        assertThat(ionic.guidText()).isEqualTo("0002:c9ff:fe0a:0b0c");

        RdmaDevice mlx = new RdmaDevice("mlx5_0", MELLANOX_MLX5, RdmaDevice.Source.LIBIBVERBS, "", -1, -1,
                RdmaDeviceKind.OUI_MELLANOX, 0x101b, 0, "20.31", 1, 1, "InfiniBand", List.of(), "");
        assertThat(mlx.shortText()).as("without sysfs, the driver's own ids").isEqualTo("mlx5_0 (vendor 0x02c9 part "
                + "0x101b)");

        RdmaDevice rxe = RdmaDevice.sysfsOnly("rxe0", "", -1, -1, "libibverbs is not installed");
        assertThat(rxe.kind()).isEqualTo(SOFT_ROCE_RXE);
        assertThat(rxe.usable()).isFalse();
        assertThat(rxe.summary()).isEqualTo("rxe0 (Soft-RoCE (rxe), no vendor id; libibverbs is not installed)");
        assertThatThrownBy(() -> RdmaDevice.sysfsOnly(" ", "", -1, -1, "")).hasMessage("an RDMA device needs a name");
    }
}
