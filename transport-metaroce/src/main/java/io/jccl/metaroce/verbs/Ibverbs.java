package io.jccl.metaroce.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static io.jccl.metaroce.ffm.Downcalls.call;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Hand-written FFM downcalls to the few libibverbs functions device discovery needs: list the devices, name them,
 * open one, query it and its ports, close it. No JNI and no generated code; the structs are {@link IbvLayouts}.
 *
 * <p>One instance per library, loaded once per JVM and never unloaded: libibverbs loads its provider libraries
 * itself, and unloading it under them gains nothing. {@link #load} never lets an {@link UnsatisfiedLinkError} or
 * {@link IllegalArgumentException} of the loader escape: a library that is missing, or lacks a function, is an
 * {@link Unavailable} with a sentence saying which.
 */
final class Ibverbs {
    /** The library's soname, as Debian's {@code libibverbs1} (rdma-core) installs it. */
    static final String DEFAULT_LIBRARY = "libibverbs.so.1";

    /** Layout of the segment a call writes {@code errno} into. */
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final long ERRNO = CALL_STATE.byteOffset(groupElement("errno"));

    private static final Map<String, Ibverbs> LOADED = new ConcurrentHashMap<>();

    private final String library;
    private final MethodHandle getDeviceList;
    private final MethodHandle freeDeviceList;
    private final MethodHandle getDeviceName;
    private final MethodHandle getDeviceGuid;
    private final MethodHandle openDevice;
    private final MethodHandle closeDevice;
    private final MethodHandle queryDevice;
    private final MethodHandle queryPort;

    /** Why libibverbs cannot be used: the sentence says which library and what went wrong. */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean notFound;

        Unavailable(String message, boolean notFound, Throwable cause) {
            super(message, cause);
            this.notFound = notFound;
        }

        /** @return true when the library itself was not found (not installed), false when it is unusable */
        boolean notFound() {
            return notFound;
        }
    }

    private Ibverbs(String library, SymbolLookup lookup) throws Unavailable {
        this.library = library;
        Linker linker = Linker.nativeLinker();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        getDeviceList = link(linker, lookup, "ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS), errno);
        freeDeviceList = link(linker, lookup, "ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS));
        getDeviceName = link(linker, lookup, "ibv_get_device_name", FunctionDescriptor.of(ADDRESS, ADDRESS));
        getDeviceGuid = link(linker, lookup, "ibv_get_device_guid", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        openDevice = link(linker, lookup, "ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS), errno);
        closeDevice = link(linker, lookup, "ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        queryDevice = link(linker, lookup, "ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        queryPort = link(linker, lookup, "ibv_query_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE,
                ADDRESS));
    }

    /**
     * Opens libibverbs (once per JVM and name) and links the functions.
     *
     * @param library a soname searched the way {@code dlopen} searches ({@code libibverbs.so.1}), or a path (it
     *                contains a {@code /})
     * @return the bindings
     * @throws Unavailable when the library cannot be opened ({@link Unavailable#notFound()}), lacks a function, or
     *                     the JVM refuses native access
     */
    static Ibverbs load(String library) throws Unavailable {
        if (library == null || library.isBlank()) {
            throw new IllegalArgumentException("the libibverbs library name is empty");
        }
        Ibverbs known = LOADED.get(library);
        if (known != null) {
            return known;
        }
        SymbolLookup lookup;
        try {
            lookup = open(library);
        } catch (IllegalArgumentException | UnsatisfiedLinkError e) {
            throw new Unavailable("unavailable: " + library + " not found", true, e);
        } catch (IllegalCallerException e) {
            throw new Unavailable("unavailable: native access to " + library + " is denied (start the JVM with "
                    + "--enable-native-access=ALL-UNNAMED): " + e.getMessage(), false, e);
        }
        Ibverbs bindings = new Ibverbs(library, lookup);
        Ibverbs raced = LOADED.putIfAbsent(library, bindings);
        return raced == null ? bindings : raced;
    }

    @SuppressWarnings("restricted") // native access, which JCCL's JVM flags enable; a denial is an Unavailable
    private static SymbolLookup open(String library) {
        return library.indexOf('/') >= 0 ? SymbolLookup.libraryLookup(Path.of(library), Arena.global())
                : SymbolLookup.libraryLookup(library, Arena.global());
    }

    @SuppressWarnings("restricted") // as above
    private MethodHandle link(Linker linker, SymbolLookup lookup, String name, FunctionDescriptor descriptor,
                              Linker.Option... options) throws Unavailable {
        MemorySegment symbol = lookup.find(name).orElseThrow(() -> new Unavailable("unavailable: " + library
                + " has no " + name + " (is it libibverbs?)", false, null));
        try {
            return linker.downcallHandle(symbol, descriptor, options);
        } catch (IllegalCallerException e) {
            throw new Unavailable("unavailable: native access to " + library + " is denied (start the JVM with "
                    + "--enable-native-access=ALL-UNNAMED): " + e.getMessage(), false, e);
        }
    }

    /** @return the library these bindings were loaded from, as it was named */
    String library() {
        return library;
    }

    /** @return a segment for {@code errno}, to pass to the calls that capture it */
    static MemorySegment callState(Arena arena) {
        return arena.allocate(CALL_STATE);
    }

    /** @return the {@code errno} the last capturing call through {@code state} left there */
    static int errno(MemorySegment state) {
        return state.get(JAVA_INT, ERRNO);
    }

    /**
     * {@code struct ibv_device **ibv_get_device_list(int *num_devices)}.
     *
     * @param state      receives {@code errno}
     * @param numDevices an {@code int} the count is written into
     * @return the NULL-terminated array, {@link MemorySegment#NULL} on failure (see {@code errno})
     */
    MemorySegment getDeviceList(MemorySegment state, MemorySegment numDevices) {
        return (MemorySegment) call(getDeviceList, state, numDevices);
    }

    /** {@code void ibv_free_device_list(struct ibv_device **list)}. */
    void freeDeviceList(MemorySegment list) {
        call(freeDeviceList, list);
    }

    /** @return {@code ibv_get_device_name(device)}, a NUL-terminated string owned by the library */
    MemorySegment getDeviceName(MemorySegment device) {
        return (MemorySegment) call(getDeviceName, device);
    }

    /** @return {@code ibv_get_device_guid(device)}: the node GUID in network byte order, as it lies in memory */
    long getDeviceGuid(MemorySegment device) {
        return (long) call(getDeviceGuid, device);
    }

    /** @return {@code ibv_open_device(device)}: a context, or {@link MemorySegment#NULL} (see {@code errno}) */
    MemorySegment openDevice(MemorySegment state, MemorySegment device) {
        return (MemorySegment) call(openDevice, state, device);
    }

    /** @return {@code ibv_close_device(context)}: 0, or -1 */
    int closeDevice(MemorySegment context) {
        return (int) call(closeDevice, context);
    }

    /** @return {@code ibv_query_device(context, attr)}: 0, or an errno value */
    int queryDevice(MemorySegment context, MemorySegment deviceAttr) {
        return (int) call(queryDevice, context, deviceAttr);
    }

    /**
     * {@code ibv_query_port(context, port, attr)}, the exported (compatibility) entry point: the header's inline
     * wrapper of the same name cannot be called through FFM.
     *
     * @param portAttr a zeroed buffer of {@link IbvLayouts#PORT_ATTR_BUFFER_BYTES}
     * @return 0, or an errno value
     */
    int queryPort(MemorySegment context, int port, MemorySegment portAttr) {
        return (int) call(queryPort, context, (byte) port, portAttr);
    }
}
