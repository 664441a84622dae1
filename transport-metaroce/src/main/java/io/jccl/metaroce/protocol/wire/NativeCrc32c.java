package io.jccl.metaroce.protocol.wire;

import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * JCCL's own CRC32C in native code ({@code src/main/c/jccl_crc32c.c}: VPCLMULQDQ folding with crc32 streams beside
 * where the CPU has AVX-512, else the crc32 instruction), 1.3-1.5 times the JDK intrinsic's rate here. The build
 * compiles it into the jar ({@link #RESOURCE}) where it finds a C compiler on Linux x86-64; it is loaded from there
 * through a temporary file (removed once loaded) and called with {@link Linker.Option#critical critical} downcalls
 * (no thread-state transition: a call over a 64 KiB packet takes under a microsecond). Unavailable, and
 * {@link Crc32c} takes the JDK's intrinsic, where the library is not in the jar, the platform is another, native
 * access is denied, the CPU lacks SSE4.2, or it disagrees with {@link CRC32C} when checked at load.
 */
final class NativeCrc32c {
    /** Where the build puts the library, relative to this class. */
    static final String RESOURCE = "native/linux-x86_64/libjcclcrc32c.so";
    /** {@code uint32_t jccl_crc32c_update(uint32_t state, const void *data, size_t bytes)}, or null. */
    private static final MethodHandle UPDATE = load();

    private NativeCrc32c() {
    }

    /** @return whether the native CRC32C is loaded and agreed with the JDK's */
    static boolean available() {
        return UPDATE != null;
    }

    /** @return whether this build packaged the library for this platform (then it should be {@link #available}) */
    static boolean packaged() {
        return onLinuxX86() && NativeCrc32c.class.getResource(RESOURCE) != null;
    }

    /**
     * Continues a CRC32C register, as the JDK's {@code CRC32C.updateDirectByteBuffer}: start from
     * {@link Crc32c#START}; the CRC is the final register inverted.
     *
     * @throws IllegalStateException when not {@link #available()}
     */
    static int update(int state, long address, int length) {
        if (UPDATE == null) {
            throw new IllegalStateException("the native CRC32C is not loaded");
        }
        try {
            return (int) UPDATE.invokeExact(state, address, (long) length);
        } catch (Throwable t) {
            throw new IllegalStateException("native CRC32C failed", t);
        }
    }

    private static boolean onLinuxX86() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return System.getProperty("os.name", "").equals("Linux") && (arch.equals("amd64") || arch.equals("x86_64"));
    }

    @SuppressWarnings("restricted") // libraryLookup, downcallHandle: native access, which JCCL's JVM flags enable
    private static MethodHandle load() {
        if (!onLinuxX86()) {
            return null;
        }
        try (InputStream in = NativeCrc32c.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return null;   // built without a C compiler
            }
            Path file = Files.createTempFile("jccl-crc32c-", ".so");
            SymbolLookup library;
            try {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                library = SymbolLookup.libraryLookup(file, Arena.global());
            } finally {
                Files.deleteIfExists(file);   // mapped by now: the name is not needed
            }
            Linker linker = Linker.nativeLinker();
            MethodHandle usable = linker.downcallHandle(library.find("jccl_crc32c_usable").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT));
            if ((int) usable.invokeExact() != 1) {
                return null;   // no SSE4.2
            }
            MethodHandle update = linker.downcallHandle(library.find("jccl_crc32c_update").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG), Linker.Option.critical(false));
            return agreesWithTheJdk(update) ? update : null;
        } catch (Throwable t) {
            return null;   // not loadable here (native access denied, an unknown platform): the JDK's intrinsic
        }
    }

    /** The known answer, then lengths across the library's thresholds (folding, crc32 streams) at odd offsets. */
    private static boolean agreesWithTheJdk(MethodHandle update) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment check = arena.allocate(16);
            MemorySegment.copy("123456789".getBytes(StandardCharsets.US_ASCII), 0, check, ValueLayout.JAVA_BYTE, 3, 9);
            if (~(int) update.invokeExact(Crc32c.START, check.address() + 3, 9L) != 0xE3069283) {
                return false;
            }
            byte[] data = new byte[70_000];
            new SplittableRandom(0x6a63636cL).nextBytes(data);
            MemorySegment segment = arena.allocate(data.length);
            MemorySegment.copy(data, 0, segment, ValueLayout.JAVA_BYTE, 0, data.length);
            CRC32C jdk = new CRC32C();
            for (int length : new int[] {0, 1, 255, 256, 1000, 2047, 2048, 4164, 9000, 65_064, 69_990}) {
                int offset = (length * 7) % 9;
                jdk.reset();
                jdk.update(data, offset, length);
                if (~(int) update.invokeExact(Crc32c.START, segment.address() + offset, (long) length)
                        != (int) jdk.getValue()) {
                    return false;
                }
            }
            return true;
        }
    }
}
