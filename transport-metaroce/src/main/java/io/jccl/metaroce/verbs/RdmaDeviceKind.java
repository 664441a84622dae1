package io.jccl.metaroce.verbs;

import java.util.Locale;

/**
 * What kind of RDMA device a discovered device is, for the offload decision and for people. Recognised, in this
 * order, by: the PCI vendor id in sysfs; the vendor id {@code ibv_query_device} reports; the kernel driver; the
 * device name's prefix ({@code ionic_0}, {@code mlx5_0}, {@code rxe0}, {@code siw0}).
 */
public enum RdmaDeviceKind {
    /**
     * An AMD Pensando DSC (PCI vendor {@code 0x1dd8}; part {@code 0x1002} the Ethernet PF, {@code 0x1003} its VF) under
     * the {@code ionic_rdma} kernel driver, named {@code ionic_N}. Its {@code ibv_query_device} reports the PCI ids as
     * vendor and part. rdma-core's user-space {@code ionic} provider came in 2025: rdma-core 44 (Debian 12) has
     * none, so there the device shows in sysfs but not through libibverbs.
     */
    PENSANDO_IONIC("AMD Pensando (ionic)"),
    /** An NVIDIA/Mellanox ConnectX (PCI vendor {@code 0x15b3}; verbs vendor id is the OUI {@code 0x02c9}), {@code mlx5}. */
    MELLANOX_MLX5("NVIDIA/Mellanox (mlx5)"),
    /** Soft-RoCE: the kernel's {@code rdma_rxe} RoCEv2 over any Ethernet device (verbs vendor id {@code 0xffffff}). */
    SOFT_ROCE_RXE("Soft-RoCE (rxe)"),
    /** Soft-iWARP: the kernel's {@code siw} over TCP. */
    SOFT_IWARP_SIW("Soft-iWARP (siw)"),
    /** Anything else: reported with its ids, not recognised. */
    OTHER("other");

    /** The PCI vendor id of Pensando Systems, now AMD's Pensando DSCs. */
    public static final int PCI_VENDOR_PENSANDO = 0x1dd8;
    /** The PCI device id of the Pensando DSC Ethernet physical function. */
    public static final int PCI_DEVICE_PENSANDO_ETH_PF = 0x1002;
    /** The PCI device id of the Pensando DSC Ethernet virtual function. */
    public static final int PCI_DEVICE_PENSANDO_ETH_VF = 0x1003;
    /** The PCI vendor id of Mellanox (NVIDIA networking). */
    public static final int PCI_VENDOR_MELLANOX = 0x15b3;
    /** The IEEE OUI mlx4/mlx5 report as {@code ibv_device_attr.vendor_id}. */
    public static final int OUI_MELLANOX = 0x02c9;
    /** The {@code vendor_id} Soft-RoCE reports. */
    public static final int RXE_VENDOR_ID = 0xffffff;

    private final String label;

    RdmaDeviceKind(String label) {
        this.label = label;
    }

    /** @return a short name for people, e.g. {@code AMD Pensando (ionic)} */
    public String label() {
        return label;
    }

    /**
     * @param name         the device name ({@code ionic_0})
     * @param kernelDriver the kernel driver from sysfs, or empty
     * @param pciVendorId  the PCI vendor id from sysfs, or -1
     * @param verbsVendorId {@code ibv_device_attr.vendor_id}, or -1
     * @return the kind
     */
    public static RdmaDeviceKind classify(String name, String kernelDriver, int pciVendorId, int verbsVendorId) {
        if (pciVendorId == PCI_VENDOR_PENSANDO) {
            return PENSANDO_IONIC;
        }
        if (pciVendorId == PCI_VENDOR_MELLANOX) {
            return MELLANOX_MLX5;
        }
        if (verbsVendorId == PCI_VENDOR_PENSANDO) {
            return PENSANDO_IONIC;
        }
        String driver = kernelDriver == null ? "" : kernelDriver.toLowerCase(Locale.ROOT);
        String n = name == null ? "" : name.toLowerCase(Locale.ROOT);
        if (driver.startsWith("ionic") || n.startsWith("ionic")) {
            return PENSANDO_IONIC;
        }
        if (driver.startsWith("mlx5") || n.startsWith("mlx5")) {
            return MELLANOX_MLX5;
        }
        if (verbsVendorId == RXE_VENDOR_ID || driver.equals("rdma_rxe") || n.startsWith("rxe")) {
            return SOFT_ROCE_RXE;
        }
        if (driver.equals("siw") || n.startsWith("siw")) {
            return SOFT_IWARP_SIW;
        }
        return OTHER;
    }
}
