package io.jccl.cli.tools;

import io.jccl.metaroce.offload.OffloadDecision;
import io.jccl.metaroce.offload.OffloadProvider;
import io.jccl.metaroce.offload.OffloadSelector;
import io.jccl.metaroce.offload.OffloadSetting;
import io.jccl.metaroce.verbs.RdmaDevice;
import io.jccl.metaroce.verbs.RdmaDiscovery;
import io.jccl.metaroce.verbs.RdmaPort;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;

/**
 * {@code jccl devices}: the host's RDMA devices and ports as MetaRoCE's NIC offload sees them (libibverbs and sysfs),
 * the offload providers installed and what each says, and the data path a {@code metaroce} transport would take.
 */
@Command(name = "devices", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"List the RDMA devices (through libibverbs, with the kernel driver and PCI ids from sysfs) "
                + "and their ports, or why there are none; the MetaRoCE offload providers installed and whether each "
                + "accepts; and the data path a metaroce transport would take here under JCCL_METAROCE_OFFLOAD "
                + "(auto, off, or a provider's name). Exits 1 when JCCL_METAROCE_OFFLOAD would fail transport "
                + "creation.",
            "",
            "Example: jccl devices",
            "Example: JCCL_IBVERBS_LIBRARY=/opt/rdma-core/lib/libibverbs.so.1 jccl devices"})
public final class DevicesCommand implements Callable<Integer> {
    @Option(names = "--library", description = "the libibverbs to load, a soname or a path (default: "
            + "JCCL_IBVERBS_LIBRARY, else libibverbs.so.1)")
    String library;

    @Option(names = "--sysfs-class-dir", hidden = true, defaultValue = "/sys/class/infiniband",
            description = "where the kernel lists RDMA devices (tests point it at a stand-in tree)")
    Path sysfsClassDir;

    /** Created by picocli. */
    public DevicesCommand() {
    }

    @Override
    public Integer call() {
        Map<String, String> options = new HashMap<>();
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("JCCL_")) {
                options.put(k, v);
            }
        });
        if (library != null) {
            options.put(RdmaDiscovery.LIBRARY_VARIABLE, library);
        }
        String lib = RdmaDiscovery.libraryFrom(options);
        RdmaDiscovery.Result found = RdmaDiscovery.discover(lib, sysfsClassDir);
        PrintStream out = System.out;
        out.println("libibverbs: " + (found.libraryState() == RdmaDiscovery.LibraryState.LOADED
                ? "loaded (" + lib + ")" : found.libraryDetail()
                + (found.libraryState() == RdmaDiscovery.LibraryState.NOT_INSTALLED
                ? " (Debian: scripts/install-rdma-core.sh)" : "")));
        if (found.devices().isEmpty()) {
            out.println("RDMA devices: none" + (found.notes().isEmpty() ? "" : " (" + String.join("; ",
                    found.notes()) + ")"));
        } else {
            out.println("RDMA devices: " + found.devices().size() + " (" + found.usableDevices().size()
                    + " usable through libibverbs)");
            for (RdmaDevice d : found.devices()) {
                printDevice(out, d);
            }
            for (String note : found.notes()) {
                out.println("note: " + note);
            }
        }
        List<OffloadProvider> providers = ServiceLoader.load(OffloadProvider.class).stream()
                .map(ServiceLoader.Provider::get).toList();
        OffloadSelector selector;
        try {
            selector = new OffloadSelector(providers, l -> found, line -> { }, () -> true);
        } catch (IllegalArgumentException e) {
            out.println("Offload providers: error: " + e.getMessage());
            return 1;
        }
        if (selector.providers().isEmpty()) {
            out.println("Offload providers: none installed");
        } else {
            out.println("Offload providers:");
            for (OffloadProvider p : selector.providers()) {
                out.println("  " + p.name() + " (priority " + p.priority() + "): " + probe(p, found.devices()));
            }
        }
        String setting;
        try {
            setting = OffloadSetting.from(options).toString();
            OffloadDecision decision = selector.decide(options);
            out.println(decision.line().contains(setting) ? decision.line() : decision.line() + "  [" + setting + "]");
            return 0;
        } catch (IllegalArgumentException e) {
            out.println(OffloadDecision.PREFIX + "error: " + e.getMessage());
            return 1;
        }
    }

    private static String probe(OffloadProvider provider, List<RdmaDevice> devices) {
        try {
            OffloadProvider.Probe p = provider.probe(devices);
            if (p == null) {
                return "declines: its probe answered nothing";
            }
            return p.accepted() ? "accepts " + p.device().name() + ": " + p.reason() : "declines: " + p.reason();
        } catch (RuntimeException e) {
            return "declines: its probe failed: " + e;
        }
    }

    private static void printDevice(PrintStream out, RdmaDevice d) {
        StringBuilder line = new StringBuilder("  ").append(d.name()).append("  ").append(d.kind().label());
        if (d.vendorId() >= 0) {
            line.append(String.format(Locale.ROOT, "  vendor 0x%04x", d.vendorId()));
            if (d.partId() >= 0) {
                line.append(String.format(Locale.ROOT, " part 0x%04x", d.partId()));
            }
        }
        if (!d.kernelDriver().isEmpty()) {
            line.append("  driver ").append(d.kernelDriver());
        }
        if (d.source() == RdmaDevice.Source.LIBIBVERBS) {
            line.append("  guid ").append(d.guidText());
            if (d.hardwareVersion() >= 0) {
                line.append(String.format(Locale.ROOT, "  hw 0x%x", d.hardwareVersion()));
            }
            if (!d.firmwareVersion().isEmpty()) {
                line.append("  fw ").append(d.firmwareVersion());
            }
            if (d.maxQueuePairs() >= 0) {
                line.append("  max_qp ").append(d.maxQueuePairs());
            }
        } else {
            line.append("  (sysfs only)");
        }
        out.println(line);
        for (RdmaPort p : d.ports()) {
            out.println("    " + p);
        }
        if (!d.problem().isEmpty()) {
            out.println("    not usable: " + d.problem());
        }
    }
}
