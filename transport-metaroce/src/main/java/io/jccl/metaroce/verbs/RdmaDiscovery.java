package io.jccl.metaroce.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Finds this host's RDMA devices: lists them through libibverbs (FFM, {@link Ibverbs}), opens each to query its
 * vendor and part ids, firmware, limits and ports, and adds the kernel driver and PCI ids from sysfs. A device the
 * kernel has but libibverbs does not list (no user-space provider for its driver) is reported from sysfs alone, with
 * the reason.
 *
 * <p>Nothing here throws for a host without RDMA: no libibverbs is {@link LibraryState#NOT_INSTALLED}, a kernel
 * without RDMA support or no device is an empty list, and a device that cannot be opened or queried carries its
 * {@link RdmaDevice#problem()}.
 */
public final class RdmaDiscovery {
    /**
     * The variable (or {@code CommConfig} option) naming the libibverbs to load: a soname or a path. Default
     * {@value Ibverbs#DEFAULT_LIBRARY}.
     */
    public static final String LIBRARY_VARIABLE = "JCCL_IBVERBS_LIBRARY";
    /** The library loaded when {@link #LIBRARY_VARIABLE} is not set. */
    public static final String DEFAULT_LIBRARY = Ibverbs.DEFAULT_LIBRARY;

    private static final int ENOSYS = 38;
    private static final int EACCES = 13;
    private static final int EPERM = 1;
    private static final int ENODEV = 19;

    private static final Map<String, Result> CACHED = new ConcurrentHashMap<>();

    /** Whether libibverbs could be used. */
    public enum LibraryState {
        /** Loaded and linked. */
        LOADED,
        /** Not found: not installed (Debian: {@code libibverbs1}), or not where {@link #LIBRARY_VARIABLE} says. */
        NOT_INSTALLED,
        /** Found but not usable: a function missing, or native access denied. */
        UNUSABLE
    }

    /**
     * What one discovery found.
     *
     * @param library       the library asked for
     * @param libraryState  whether it could be used
     * @param libraryDetail a sentence: {@code loaded}, or why not (e.g. {@code unavailable: libibverbs.so.1 not
     *                      found})
     * @param devices       every device, usable or not, in name order
     * @param notes         what else people should know, e.g. that the kernel has no RDMA support loaded
     */
    public record Result(String library, LibraryState libraryState, String libraryDetail, List<RdmaDevice> devices,
                         List<String> notes) {
        /** Copies the lists. */
        public Result {
            Objects.requireNonNull(library, "library");
            Objects.requireNonNull(libraryState, "libraryState");
            Objects.requireNonNull(libraryDetail, "libraryDetail");
            devices = List.copyOf(devices);
            notes = List.copyOf(notes);
        }

        /**
         * A result with these devices and libibverbs loaded, for tests and for providers' own tests.
         *
         * @param devices the devices
         * @return the result
         */
        public static Result of(List<RdmaDevice> devices) {
            return new Result(DEFAULT_LIBRARY, LibraryState.LOADED, "loaded", devices, List.of());
        }

        /** @return the devices libibverbs listed and queried without trouble */
        public List<RdmaDevice> usableDevices() {
            return devices.stream().filter(RdmaDevice::usable).toList();
        }

        /** @return e.g. {@code RDMA devices: none; libibverbs: not installed}, for the decision line */
        public String summary() {
            String list = devices.isEmpty() ? "none"
                    : devices.stream().map(RdmaDevice::summary).collect(Collectors.joining(", "));
            String why = notes.isEmpty() ? "" : " (" + String.join("; ", notes) + ")";
            String lib = switch (libraryState) {
                case LOADED -> "loaded";
                case NOT_INSTALLED -> "not installed";
                case UNUSABLE -> libraryDetail;
            };
            return "RDMA devices: " + list + why + "; libibverbs: " + lib;
        }
    }

    private RdmaDiscovery() {
    }

    /**
     * @param options the transport's options ({@code JCCL_*} variables and {@code CommConfig} settings), or null
     * @return the library {@link #LIBRARY_VARIABLE} names there, else in the environment, else
     *         {@value Ibverbs#DEFAULT_LIBRARY}
     */
    public static String libraryFrom(Map<String, String> options) {
        String v = options == null ? null : options.get(LIBRARY_VARIABLE);
        if (v == null || v.isBlank()) {
            v = System.getenv(LIBRARY_VARIABLE);
        }
        return v == null || v.isBlank() ? DEFAULT_LIBRARY : v.strip();
    }

    /**
     * Discovers once per JVM and library, for transport creation: the devices of a host do not change between two
     * communicators, and opening each device again for every transport would cost milliseconds each time.
     *
     * @param library a soname or path
     * @return the first discovery's result for that library
     */
    public static Result cached(String library) {
        return CACHED.computeIfAbsent(library, l -> discover(l, SysfsRdma.CLASS_DIR));
    }

    /**
     * Discovers now, through {@code library} and the real sysfs.
     *
     * @param library a soname searched as {@code dlopen} does, or a path
     * @return what was found
     */
    public static Result discover(String library) {
        return discover(library, SysfsRdma.CLASS_DIR);
    }

    /**
     * Discovers through {@code library}, reading sysfs under {@code sysfsClassDir}.
     *
     * @param library       a soname or path
     * @param sysfsClassDir {@code /sys/class/infiniband}, or a stand-in tree in tests
     * @return what was found
     * @throws IllegalArgumentException when {@code library} is blank
     */
    public static Result discover(String library, Path sysfsClassDir) {
        if (library == null || library.isBlank()) {
            throw new IllegalArgumentException(LIBRARY_VARIABLE + " is empty: name a libibverbs soname or path");
        }
        List<SysfsRdma.Device> sysfs = SysfsRdma.read(sysfsClassDir);
        Ibverbs verbs;
        try {
            verbs = Ibverbs.load(library);
        } catch (Ibverbs.Unavailable e) {
            LibraryState state = e.notFound() ? LibraryState.NOT_INSTALLED : LibraryState.UNUSABLE;
            String problem = state == LibraryState.NOT_INSTALLED ? "libibverbs is not installed" : e.getMessage();
            List<RdmaDevice> devices = new ArrayList<>();
            for (SysfsRdma.Device d : sysfs) {
                devices.add(RdmaDevice.sysfsOnly(d.name(), d.kernelDriver(), d.pciVendorId(), d.pciDeviceId(), problem));
            }
            return new Result(library, state, e.getMessage(), devices, List.of());
        }
        List<String> notes = new ArrayList<>();
        Map<String, RdmaDevice> byName = new LinkedHashMap<>();
        for (RdmaDevice d : listThroughVerbs(verbs, sysfs, notes)) {
            byName.put(d.name(), d);
        }
        for (SysfsRdma.Device d : sysfs) {
            if (!byName.containsKey(d.name())) {
                byName.put(d.name(), RdmaDevice.sysfsOnly(d.name(), d.kernelDriver(), d.pciVendorId(),
                        d.pciDeviceId(), "libibverbs does not list it: this rdma-core has no user-space provider for "
                                + "driver " + (d.kernelDriver().isEmpty() ? "(unknown)" : d.kernelDriver())
                                + " (ibverbs-providers)"));
            }
        }
        List<RdmaDevice> devices = new ArrayList<>(byName.values());
        devices.sort((a, b) -> a.name().compareTo(b.name()));
        return new Result(library, LibraryState.LOADED, "loaded", devices, notes);
    }

    @SuppressWarnings("restricted") // sizing what libibverbs returned to the C types' sizes, which native access allows
    private static List<RdmaDevice> listThroughVerbs(Ibverbs verbs, List<SysfsRdma.Device> sysfs, List<String> notes) {
        List<RdmaDevice> out = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Ibverbs.callState(arena);
            MemorySegment count = arena.allocate(JAVA_INT);
            MemorySegment list = verbs.getDeviceList(state, count);
            if (list.equals(MemorySegment.NULL)) {
                int errno = Ibverbs.errno(state);
                notes.add(errno == ENOSYS ? "the kernel has no RDMA support loaded: ibv_get_device_list failed with "
                        + "ENOSYS" : "ibv_get_device_list failed: " + errnoText(errno));
                return out;
            }
            try {
                int n = count.get(JAVA_INT, 0);
                MemorySegment array = list.reinterpret(ADDRESS.byteSize() * (n + 1L));
                for (int i = 0; i < n; i++) {
                    MemorySegment device = array.getAtIndex(ADDRESS, i).reinterpret(IbvLayouts.IBV_DEVICE.byteSize());
                    out.add(describe(verbs, arena, device, sysfs));
                }
            } finally {
                verbs.freeDeviceList(list);
            }
        }
        return out;
    }

    @SuppressWarnings("restricted") // as above
    private static RdmaDevice describe(Ibverbs verbs, Arena arena, MemorySegment device,
                                       List<SysfsRdma.Device> sysfs) {
        String name = cString(verbs.getDeviceName(device).reinterpret(IbvLayouts.SYSFS_NAME_MAX), 0,
                IbvLayouts.SYSFS_NAME_MAX);
        SysfsRdma.Device fromSysfs = sysfs.stream().filter(d -> d.name().equals(name)).findFirst()
                .orElse(new SysfsRdma.Device(name, "", -1, -1));
        long guid = fromNetworkOrder(verbs.getDeviceGuid(device));
        String transport = transportName(device.get(JAVA_INT, IbvLayouts.DEVICE_TRANSPORT_TYPE));
        MemorySegment state = Ibverbs.callState(arena);
        MemorySegment context = verbs.openDevice(state, device);
        if (context.equals(MemorySegment.NULL)) {
            int errno = Ibverbs.errno(state);
            return new RdmaDevice(name, RdmaDeviceKind.classify(name, fromSysfs.kernelDriver(),
                    fromSysfs.pciVendorId(), -1), RdmaDevice.Source.LIBIBVERBS, fromSysfs.kernelDriver(),
                    fromSysfs.pciVendorId(), fromSysfs.pciDeviceId(), -1, -1, -1, "", guid, -1, transport, List.of(),
                    "ibv_open_device failed: " + errnoText(errno) + (errno == EACCES || errno == EPERM
                            ? " (no access to /dev/infiniband/uverbs*)" : ""));
        }
        try {
            MemorySegment attr = arena.allocate(IbvLayouts.IBV_DEVICE_ATTR);
            int rc = verbs.queryDevice(context, attr);
            if (rc != 0) {
                return new RdmaDevice(name, RdmaDeviceKind.classify(name, fromSysfs.kernelDriver(),
                        fromSysfs.pciVendorId(), -1), RdmaDevice.Source.LIBIBVERBS, fromSysfs.kernelDriver(),
                        fromSysfs.pciVendorId(), fromSysfs.pciDeviceId(), -1, -1, -1, "", guid, -1, transport,
                        List.of(), "ibv_query_device failed: " + errnoText(rc));
            }
            int vendor = attr.get(JAVA_INT, IbvLayouts.ATTR_VENDOR_ID);
            int part = attr.get(JAVA_INT, IbvLayouts.ATTR_VENDOR_PART_ID);
            int hw = attr.get(JAVA_INT, IbvLayouts.ATTR_HW_VER);
            int maxQp = attr.get(JAVA_INT, IbvLayouts.ATTR_MAX_QP);
            String firmware = cString(attr, IbvLayouts.ATTR_FW_VER, IbvLayouts.FW_VER_MAX);
            int portCount = Byte.toUnsignedInt(attr.get(JAVA_BYTE, IbvLayouts.ATTR_PHYS_PORT_CNT));
            List<RdmaPort> ports = new ArrayList<>();
            String problem = "";
            for (int p = 1; p <= portCount; p++) {
                MemorySegment portAttr = arena.allocate(IbvLayouts.PORT_ATTR_BUFFER_BYTES, 8);   // zeroed
                int prc = verbs.queryPort(context, p, portAttr);
                if (prc != 0) {
                    problem = "ibv_query_port(" + p + ") failed: " + errnoText(prc);
                    continue;
                }
                ports.add(new RdmaPort(p, RdmaPort.stateName(portAttr.get(JAVA_INT, IbvLayouts.PORT_STATE)),
                        RdmaPort.mtuBytes(portAttr.get(JAVA_INT, IbvLayouts.PORT_ACTIVE_MTU)),
                        RdmaPort.linkLayerName(Byte.toUnsignedInt(portAttr.get(JAVA_BYTE,
                                IbvLayouts.PORT_LINK_LAYER)))));
            }
            return new RdmaDevice(name, RdmaDeviceKind.classify(name, fromSysfs.kernelDriver(),
                    fromSysfs.pciVendorId(), vendor), RdmaDevice.Source.LIBIBVERBS, fromSysfs.kernelDriver(),
                    fromSysfs.pciVendorId(), fromSysfs.pciDeviceId(), vendor, part, hw, firmware, guid, maxQp,
                    transport, ports, problem);
        } finally {
            verbs.closeDevice(context);
        }
    }

    /** @return the NUL-terminated string at {@code offset}, at most {@code max} bytes */
    static String cString(MemorySegment segment, long offset, int max) {
        int length = 0;
        while (length < max && segment.get(JAVA_BYTE, offset + length) != 0) {
            length++;
        }
        byte[] bytes = new byte[length];
        MemorySegment.copy(segment, JAVA_BYTE, offset, bytes, 0, length);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** @return a {@code __be64} read as a native {@code long}, as the number it stands for */
    static long fromNetworkOrder(long be64) {
        return ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? Long.reverseBytes(be64) : be64;
    }

    /** @return {@code enum ibv_transport_type} as a word */
    static String transportName(int transport) {
        return IbvLayouts.enumName(transport, IbvLayouts.TRANSPORT_NAMES, "unknown");
    }

    private static String errnoText(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM";
            case EACCES -> "EACCES";
            case ENODEV -> "ENODEV";
            case ENOSYS -> "ENOSYS";
            default -> "errno " + errno;
        };
    }
}
