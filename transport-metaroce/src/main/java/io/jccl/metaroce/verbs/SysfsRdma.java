package io.jccl.metaroce.verbs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What sysfs says about the kernel's RDMA devices: {@code /sys/class/infiniband/<name>} for each, and through its
 * {@code device} link the kernel driver and PCI ids. Simpler and more direct than libibverbs for "which hardware is
 * this", and it sees devices that libibverbs cannot open (no user-space provider). Nothing here needs libibverbs.
 */
final class SysfsRdma {
    /** Where the kernel lists RDMA devices. */
    static final Path CLASS_DIR = Path.of("/sys/class/infiniband");
    /** How far above a device's {@code device} link to look for the PCI function (an ionic RDMA device is an
     * auxiliary device below it). */
    private static final int PCI_SEARCH_LEVELS = 3;

    /**
     * One device as sysfs has it.
     *
     * @param name         the device name
     * @param kernelDriver the driver of its PCI function (or of its own device where no PCI function was found),
     *                     empty when none
     * @param pciVendorId  -1 when not a PCI device
     * @param pciDeviceId  -1 when not a PCI device
     */
    record Device(String name, String kernelDriver, int pciVendorId, int pciDeviceId) {
    }

    private SysfsRdma() {
    }

    /**
     * @param classDir {@link #CLASS_DIR}, or a stand-in tree in tests
     * @return the devices in name order; empty when the directory does not exist (no RDMA in the kernel) or cannot be
     *         read
     */
    static List<Device> read(Path classDir) {
        List<Device> out = new ArrayList<>();
        if (!Files.isDirectory(classDir)) {
            return out;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(classDir)) {
            for (Path entry : entries) {
                out.add(describe(entry));
            }
        } catch (IOException | RuntimeException e) {
            // an unreadable sysfs says nothing: libibverbs may still list the devices
        }
        out.sort((a, b) -> a.name().compareTo(b.name()));
        return out;
    }

    private static Device describe(Path entry) {
        String name = entry.getFileName().toString();
        Path link = entry.resolve("device");
        Path device;
        try {
            device = link.toRealPath();
        } catch (IOException e) {
            return new Device(name, "", -1, -1);   // a software device (rxe, siw) may have no parent device
        }
        String firstDriver = driverOf(device);
        Path dir = device;
        for (int level = 0; level < PCI_SEARCH_LEVELS && dir != null; level++, dir = dir.getParent()) {
            int vendor = hexFile(dir.resolve("vendor"));
            if (vendor >= 0) {
                String driver = driverOf(dir);
                return new Device(name, driver.isEmpty() ? firstDriver : driver, vendor, hexFile(dir.resolve("device")));
            }
        }
        return new Device(name, firstDriver, -1, -1);
    }

    /** @return the name of the driver bound to a sysfs device directory, empty when none */
    private static String driverOf(Path deviceDir) {
        try {
            Path driver = deviceDir.resolve("driver").toRealPath();
            return driver.getFileName().toString();
        } catch (IOException e) {
            return "";
        }
    }

    /** @return a sysfs id file's value ({@code 0x1dd8}), -1 when missing or not hexadecimal */
    static int hexFile(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.US_ASCII).strip().toLowerCase(Locale.ROOT);
            if (text.startsWith("0x")) {
                text = text.substring(2);
            }
            int value = Integer.parseInt(text, 16);
            return value < 0 ? -1 : value;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }
}
