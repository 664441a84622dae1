package io.jccl.metaroce.verbs;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One RDMA device of this host, as discovery found it: through libibverbs ({@code ibv_get_device_list},
 * {@code ibv_query_device}, {@code ibv_query_port}), with the kernel driver and PCI ids read from sysfs
 * ({@code /sys/class/infiniband/<name>/device}); or only in sysfs, when libibverbs cannot use it.
 *
 * @param name              the kernel's device name, e.g. {@code ionic_0}, {@code mlx5_0}, {@code rxe0}
 * @param kind              what it was recognised as
 * @param source            where it was found
 * @param kernelDriver      the kernel driver bound to its PCI function (sysfs), e.g. {@code ionic}, {@code mlx5_core};
 *                          empty when unknown
 * @param pciVendorId       PCI vendor id (sysfs), -1 when unknown (a software device has none)
 * @param pciDeviceId       PCI device id (sysfs), -1 when unknown
 * @param verbsVendorId     {@code ibv_device_attr.vendor_id}: the PCI vendor for some drivers (ionic), an IEEE OUI for
 *                          others (mlx5: {@code 0x02c9}); -1 when not queried
 * @param verbsVendorPartId {@code ibv_device_attr.vendor_part_id}, -1 when not queried
 * @param hardwareVersion   {@code ibv_device_attr.hw_ver}, -1 when not queried
 * @param firmwareVersion   {@code ibv_device_attr.fw_ver}, empty when not queried or not reported
 * @param nodeGuid          the node GUID as a number ({@code ibv_get_device_guid}, byte-swapped from network order),
 *                          0 when unknown
 * @param maxQueuePairs     {@code ibv_device_attr.max_qp}, -1 when not queried
 * @param transport         {@code ibv_device.transport_type} as a word ({@code InfiniBand} for IB and RoCE,
 *                          {@code iWARP}, ...), empty when unknown
 * @param ports             its ports, from 1
 * @param problem           why it cannot be used through libibverbs, empty when it can
 */
public record RdmaDevice(String name, RdmaDeviceKind kind, Source source, String kernelDriver, int pciVendorId,
                         int pciDeviceId, int verbsVendorId, int verbsVendorPartId, int hardwareVersion,
                         String firmwareVersion, long nodeGuid, int maxQueuePairs, String transport,
                         List<RdmaPort> ports, String problem) {

    /** Where a device was found. */
    public enum Source {
        /** Listed by libibverbs (and queried, unless {@link #problem()} says otherwise); sysfs added its ids. */
        LIBIBVERBS,
        /** Only in sysfs: the kernel has it, libibverbs does not list it (no user-space provider, or no libibverbs). */
        SYSFS_ONLY
    }

    /**
     * @throws IllegalArgumentException when the name is blank
     */
    public RdmaDevice {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("an RDMA device needs a name");
        }
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(source, "source");
        kernelDriver = Objects.requireNonNullElse(kernelDriver, "");
        firmwareVersion = Objects.requireNonNullElse(firmwareVersion, "");
        transport = Objects.requireNonNullElse(transport, "");
        ports = List.copyOf(Objects.requireNonNullElse(ports, List.of()));
        problem = Objects.requireNonNullElse(problem, "");
    }

    /**
     * A device as sysfs alone describes it (kind recognised from what is given), for providers' tests and for
     * devices libibverbs does not list.
     *
     * @param name         device name
     * @param kernelDriver kernel driver, or empty
     * @param pciVendorId  PCI vendor id, or -1
     * @param pciDeviceId  PCI device id, or -1
     * @param problem      why libibverbs cannot use it, or empty
     * @return the device, with no ports and nothing queried
     */
    public static RdmaDevice sysfsOnly(String name, String kernelDriver, int pciVendorId, int pciDeviceId,
                                       String problem) {
        return new RdmaDevice(name, RdmaDeviceKind.classify(name, kernelDriver, pciVendorId, -1), Source.SYSFS_ONLY,
                kernelDriver, pciVendorId, pciDeviceId, -1, -1, -1, "", 0, -1, "", List.of(), problem);
    }

    /** @return whether libibverbs listed and queried it without trouble */
    public boolean usable() {
        return source == Source.LIBIBVERBS && problem.isEmpty();
    }

    /** @return the vendor id for people: the PCI vendor where sysfs gave it, else what the driver reported */
    public int vendorId() {
        return pciVendorId >= 0 ? pciVendorId : verbsVendorId;
    }

    /** @return the part id for people: the PCI device where sysfs gave it, else the driver's vendor part id */
    public int partId() {
        return pciDeviceId >= 0 ? pciDeviceId : verbsVendorPartId;
    }

    /** @return whether one of its ports is up over Ethernet (RoCE), where MetaRoCE's UDP packets can go */
    public boolean hasActiveEthernetPort() {
        return ports.stream().anyMatch(p -> p.isActive() && p.isEthernet());
    }

    /** @return the node GUID as {@code ibv_devices} prints it, {@code xxxx:xxxx:xxxx:xxxx} */
    public String guidText() {
        String hex = String.format(Locale.ROOT, "%016x", nodeGuid);
        return hex.substring(0, 4) + ":" + hex.substring(4, 8) + ":" + hex.substring(8, 12) + ":" + hex.substring(12);
    }

    /** @return e.g. {@code ionic_0 (vendor 0x1dd8 part 0x1002)}: what the decision line names */
    public String shortText() {
        return name + " (" + ids() + ")";
    }

    /** @return e.g. {@code ionic_0 (AMD Pensando (ionic), vendor 0x1dd8 part 0x1002)} */
    public String summary() {
        return name + " (" + kind.label() + ", " + ids() + (problem.isEmpty() ? "" : "; " + problem) + ")";
    }

    private String ids() {
        if (vendorId() < 0) {
            return "no vendor id";
        }
        String vendor = String.format(Locale.ROOT, "vendor 0x%04x", vendorId());
        return partId() < 0 ? vendor : vendor + String.format(Locale.ROOT, " part 0x%04x", partId());
    }
}
