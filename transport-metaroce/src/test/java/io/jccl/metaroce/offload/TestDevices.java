package io.jccl.metaroce.offload;

import io.jccl.metaroce.verbs.RdmaDevice;
import io.jccl.metaroce.verbs.RdmaDeviceKind;
import io.jccl.metaroce.verbs.RdmaDiscovery;
import io.jccl.metaroce.verbs.RdmaPort;

import java.util.List;

/** Devices as discovery would report them on hosts this one is not, for the selection tests. */
public final class TestDevices {
    private TestDevices() {
    }

    /** @return an AMD Pensando DSC's RDMA device, listed and queried through libibverbs, its port up on Ethernet */
    public static RdmaDevice ionic0() {
        return new RdmaDevice("ionic_0", RdmaDeviceKind.PENSANDO_IONIC, RdmaDevice.Source.LIBIBVERBS, "ionic",
                0x1dd8, 0x1002, 0x1dd8, 0x1002, 1, "", 0x0002c9fffe0a0b0cL, 4096, "InfiniBand",
                List.of(new RdmaPort(1, "ACTIVE", 4096, "Ethernet")), "");
    }

    /** @return a ConnectX's RDMA device, listed and queried through libibverbs */
    public static RdmaDevice mlx5() {
        return new RdmaDevice("mlx5_0", RdmaDeviceKind.MELLANOX_MLX5, RdmaDevice.Source.LIBIBVERBS, "mlx5_core",
                0x15b3, 0x101b, 0x02c9, 0x101b, 0, "20.31.1014", 0x1070fd0300aabbccL, 131072, "InfiniBand",
                List.of(new RdmaPort(1, "ACTIVE", 1024, "Ethernet")), "");
    }

    /** @return what discovery finds on a host without libibverbs */
    public static RdmaDiscovery.Result noLibibverbs() {
        return new RdmaDiscovery.Result("libibverbs.so.1", RdmaDiscovery.LibraryState.NOT_INSTALLED,
                "unavailable: libibverbs.so.1 not found", List.of(), List.of());
    }
}
