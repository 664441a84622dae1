package io.jccl.metaroce.verbs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A stand-in for {@code /sys}: {@code class/infiniband/<name>} links into a {@code devices} tree with PCI functions
 * ({@code vendor}, {@code device}, a {@code driver} link), the way the kernel lays them out.
 */
final class FakeSysfs {
    final Path root;
    final Path classDir;

    FakeSysfs(Path root) throws IOException {
        this.root = root;
        this.classDir = Files.createDirectories(root.resolve("class/infiniband"));
    }

    /** A PCI function with its ids and driver; returns its directory. */
    Path pciFunction(String address, int vendor, int device, String driver) throws IOException {
        Path dir = Files.createDirectories(root.resolve("devices/pci0000:00/" + address));
        Files.writeString(dir.resolve("vendor"), String.format("0x%04x%n", vendor));
        Files.writeString(dir.resolve("device"), String.format("0x%04x%n", device));
        Path drivers = Files.createDirectories(root.resolve("bus/pci/drivers/" + driver));
        Files.createSymbolicLink(dir.resolve("driver"), drivers);
        return dir;
    }

    /** An RDMA device whose {@code device} link points at {@code parent}. */
    void rdmaDevice(String name, Path parent) throws IOException {
        Path dev = Files.createDirectories(root.resolve("devices/virtual/infiniband/" + name));
        if (parent != null) {
            Files.createSymbolicLink(dev.resolve("device"), parent);
        }
        Files.createSymbolicLink(classDir.resolve(name), dev);
    }
}
