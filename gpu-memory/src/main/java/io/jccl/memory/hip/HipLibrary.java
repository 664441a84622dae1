package io.jccl.memory.hip;

import io.jccl.memory.RuntimeLoad;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds and loads the HIP runtime. An override ({@value #PROPERTY} system property, else the {@value #VARIABLE}
 * environment variable) names the one library to load, a path or a soname: tests point it at the stub, users at a
 * ROCm installation the loader does not search. Without one, the versioned sonames are tried newest first (the
 * runtime's ABI is stable within a major version), then the same names under {@code $ROCM_PATH/lib} and
 * {@code /opt/rocm/lib}, where ROCm installs them even when {@code ld.so} is not told.
 *
 * <p>Loading never throws: every failure (no file, not loadable, a missing function, a JVM without native access)
 * becomes part of the reason {@link RuntimeLoad#reason()} gives.
 */
final class HipLibrary {
    /** System property naming the HIP library to load (wins over {@link #VARIABLE}). */
    static final String PROPERTY = "jccl.hip.library";
    /** Environment variable naming the HIP library to load. */
    static final String VARIABLE = "JCCL_HIP_LIBRARY";
    /** The runtime's sonames, newest major version first. */
    static final List<String> SONAMES = List.of("libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
            "libamdhip64.so");
    static final String DEFAULT_ROCM = "/opt/rocm";

    private static final RuntimeLoad.Shared<HipRuntime> SHARED =
            new RuntimeLoad.Shared<>(() -> load(candidates(override(), System.getenv("ROCM_PATH"))));

    private HipLibrary() {
    }

    /** @return the override for the library, or null: the system property, else the environment variable */
    static String override() {
        String p = System.getProperty(PROPERTY);
        if (p != null && !p.isBlank()) {
            return p.trim();
        }
        String v = System.getenv(VARIABLE);
        return v != null && !v.isBlank() ? v.trim() : null;
    }

    /**
     * @param override  the library to load alone, or null
     * @param rocmPath  {@code $ROCM_PATH}, or null
     * @return what to try, in order
     */
    static List<String> candidates(String override, String rocmPath) {
        if (override != null) {
            return List.of(override);
        }
        List<String> c = new ArrayList<>(SONAMES);
        List<String> dirs = new ArrayList<>();
        if (rocmPath != null && !rocmPath.isBlank()) {
            dirs.add(rocmPath.trim());
        }
        if (!dirs.contains(DEFAULT_ROCM)) {
            dirs.add(DEFAULT_ROCM);
        }
        for (String dir : dirs) {
            for (String so : SONAMES) {
                c.add(dir + "/lib/" + so);
            }
        }
        return List.copyOf(c);
    }

    /** @return the JVM's HIP runtime, loaded once from the override or the default candidates */
    static RuntimeLoad<HipRuntime> shared() {
        return SHARED.get();
    }

    /**
     * Tries the candidates in order and binds the first that loads and has every required function. A library
     * that loads stays loaded for the JVM's lifetime; the others are unloaded again.
     *
     * @param candidates paths or sonames
     * @return the runtime, or the reason
     */
    static RuntimeLoad<HipRuntime> load(List<String> candidates) {
        if (!HipLibrary.class.getModule().isNativeAccessEnabled()) {
            return new RuntimeLoad<>(null, "JCCL has no native access: start the JVM with "
                    + "--enable-native-access=ALL-UNNAMED (or the module that holds jccl-gpu-memory)");
        }
        List<String> tried = new ArrayList<>();
        for (String candidate : candidates) {
            Arena arena = Arena.ofShared();
            boolean keep = false;
            try {
                SymbolLookup lookup = SymbolLookup.libraryLookup(candidate, arena);
                HipRuntime runtime = new HipRuntime(lookup, candidate);
                keep = true;
                return new RuntimeLoad<>(runtime, "");
            } catch (HipRuntime.MissingSymbolException e) {
                tried.add(candidate + " (loaded, but has no " + e.getMessage() + ": not a HIP runtime, or too old)");
            } catch (IllegalArgumentException e) {
                tried.add(candidate + " (cannot be loaded)");
            } catch (RuntimeException | LinkageError e) {
                tried.add(candidate + " (" + e + ")");
            } finally {
                if (!keep) {
                    arena.close();
                }
            }
        }
        return new RuntimeLoad<>(null, "the HIP runtime (libamdhip64) was not found: tried " + String.join(", ", tried)
                + "; install ROCm, or set " + VARIABLE + " (or -D" + PROPERTY + ") to the library's path");
    }
}
