package io.jccl.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The gcc-compiled C loop {@code dst[i] = a[i] + b[i]} (benchmarks/src/main/c/jccl_ref_sum.c) behind an FFM
 * downcall. The library is {@code target/native/libjcclref.so} next to the benchmarks jar, or the file the system
 * property {@value #LIBRARY_PROPERTY} names. When it is missing {@link #SUM_F32} is null and
 * {@link #UNAVAILABLE_REASON} says why.
 *
 * <p>The downcall is "critical" (no thread-state transition), as fits a short call that neither blocks nor
 * calls back, so the comparison measures the loops rather than the call.
 */
final class CReference {
    /** System property that overrides the library's path. */
    static final String LIBRARY_PROPERTY = "jccl.bench.nativeLib";
    /** File name of the library the build compiles. */
    static final String LIBRARY_FILE = "libjcclref.so";

    /** {@code void jccl_ref_sum_f32(const float*, const float*, float*, size_t)}, or null if unavailable. */
    static final MethodHandle SUM_F32;
    /** Why {@link #SUM_F32} is null; null when it is available. */
    static final String UNAVAILABLE_REASON;

    static {
        MethodHandle handle = null;
        String reason = null;
        try {
            Optional<Path> library = findLibrary();
            if (library.isEmpty()) {
                reason = "C reference unavailable: " + LIBRARY_FILE + " not found (was gcc missing at build time? "
                        + "or set -D" + LIBRARY_PROPERTY + "=/path/to/" + LIBRARY_FILE + ")";
            } else {
                Linker linker = Linker.nativeLinker();
                // The library stays loaded for the JVM's life: a global arena.
                SymbolLookup lookup = SymbolLookup.libraryLookup(library.get(), Arena.global());
                MemorySegment symbol = lookup.find("jccl_ref_sum_f32").orElseThrow();
                handle = linker.downcallHandle(symbol,
                        FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                                ValueLayout.JAVA_LONG),
                        Linker.Option.critical(false));
            }
        } catch (RuntimeException e) {
            reason = "C reference unavailable: " + e;
        }
        SUM_F32 = handle;
        UNAVAILABLE_REASON = reason;
    }

    private CReference() {
    }

    private static Optional<Path> findLibrary() {
        String configured = System.getProperty(LIBRARY_PROPERTY);
        if (configured != null) {
            Path path = Path.of(configured);
            return Files.isRegularFile(path) ? Optional.of(path) : Optional.empty();
        }
        try {
            Path codeSource = Path.of(CReference.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            // target/benchmarks.jar or target/classes: either way the library is in target/native.
            Path path = codeSource.getParent().resolve("native").resolve(LIBRARY_FILE);
            return Files.isRegularFile(path) ? Optional.of(path) : Optional.empty();
        } catch (URISyntaxException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
