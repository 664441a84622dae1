package io.jccl.memory.cuda;

import io.jccl.memory.RuntimeLoad;

/**
 * Loads JCuda once per JVM and never throws: every way loading can fail becomes the reason {@link RuntimeLoad#reason()}
 * gives.
 *
 * <ul>
 * <li>JCuda's classes missing (no {@code org.jcuda:jcuda} on the class path): {@link ClassNotFoundException};</li>
 * <li>its native library missing (no {@code jcuda-natives} jar for this platform, no copy on
 *     {@code java.library.path}): {@link UnsatisfiedLinkError} from JCuda's class initializer, and
 *     {@link NoClassDefFoundError} ("could not initialize class") on every later touch;</li>
 * <li>anything else its loader throws ({@link ExceptionInInitializerError}, {@link SecurityException}, an
 *     {@link IllegalCallerException} from a JVM that denies native access, ...).</li>
 * </ul>
 *
 * <p>Loading JCuda's runtime library needs no NVIDIA driver: the CUDA runtime is linked into it and opens
 * {@code libcuda.so.1} only when called. So without a driver loading succeeds and {@code cudaGetDeviceCount}
 * answers {@code cudaErrorInsufficientDriver} (35), which {@link CudaMemoryDomainProvider} reports.
 *
 * <p>Nothing of JCuda is referenced outside the guarded block: the class that touches it, {@link CudaRuntime}, is
 * first linked inside it, so even its verification (which loads JCuda's classes) fails there.
 */
final class CudaLibrary {
    /** The JCuda class whose initializer loads the native library. */
    static final String JCUDA_CLASS = "jcuda.runtime.JCuda";
    /** What JCCL was built and tested with. */
    static final String JCUDA_VERSION = "12.6.0";

    private static final RuntimeLoad.Shared<CudaRuntime> SHARED =
            new RuntimeLoad.Shared<>(() -> load(CudaLibrary.class.getClassLoader()));

    private CudaLibrary() {
    }

    /** @return the JVM's CUDA runtime, loaded on first call */
    static RuntimeLoad<CudaRuntime> shared() {
        return SHARED.get();
    }

    /**
     * Loads JCuda through {@code loader}.
     *
     * @param loader where JCuda's classes are looked for
     * @return the runtime, or the reason
     */
    static RuntimeLoad<CudaRuntime> load(ClassLoader loader) {
        try {
            Class.forName(JCUDA_CLASS, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return new RuntimeLoad<>(null, "JCuda is not on the class path (" + JCUDA_CLASS + ": " + firstLine(e)
                    + "); add org.jcuda:jcuda:" + JCUDA_VERSION + " and its jcuda-natives jar for this platform");
        }
        try {
            return new RuntimeLoad<>(new CudaRuntime(), "");
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable t) {
            return new RuntimeLoad<>(null, reason(t));
        }
    }

    /**
     * @param t what loading JCuda threw
     * @return a sentence for users: what is missing and how to get it
     */
    static String reason(Throwable t) {
        Throwable cause = t instanceof ExceptionInInitializerError && t.getCause() != null ? t.getCause() : t;
        if (cause instanceof UnsatisfiedLinkError) {
            return "JCuda's native library could not be loaded (" + firstLine(cause) + "); put the jcuda-natives:"
                    + JCUDA_VERSION + " jar for " + platform() + " on the class path, or its library on "
                    + "java.library.path";
        }
        if (cause instanceof NoClassDefFoundError) {
            return "JCuda failed to initialize earlier in this JVM (" + firstLine(cause) + "); its native library "
                    + "is probably missing: put the jcuda-natives:" + JCUDA_VERSION + " jar for " + platform()
                    + " on the class path";
        }
        return "loading JCuda failed: " + cause.getClass().getName() + ": " + firstLine(cause);
    }

    /** @return JCuda's name for this platform, as its natives jars are classified */
    static String platform() {
        String arch = System.getProperty("os.arch", "?");
        String os = System.getProperty("os.name", "?").toLowerCase(java.util.Locale.ROOT);
        return (os.contains("linux") ? "linux" : os.contains("win") ? "windows" : os) + "-"
                + (arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch);
    }

    /** JCuda's loading errors run to dozens of lines of nested stack traces: their first line says it. */
    static String firstLine(Throwable t) {
        String m = t.getMessage();
        if (m == null || m.isBlank()) {
            return t.getClass().getSimpleName();
        }
        int nl = m.indexOf('\n');
        return (nl < 0 ? m : m.substring(0, nl)).trim();
    }
}
