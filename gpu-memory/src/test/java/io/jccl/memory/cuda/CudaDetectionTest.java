package io.jccl.memory.cuda;

import io.jccl.CommConfig;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.memory.Availability;
import io.jccl.memory.DomainAvailabilityMain;
import io.jccl.memory.HostMemoryDomainProvider;
import io.jccl.memory.MemoryDomainProvider;
import io.jccl.memory.MemoryDomains;
import io.jccl.memory.RuntimeLoad;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Detecting CUDA without a GPU: with no NVIDIA driver the provider is unavailable with the {@code cudaError} name
 * and a sentence; without JCuda's natives jar, or without JCuda at all (child JVMs with those jars removed from the
 * class path and nowhere to find a copy), too; a loader that throws any {@link LinkageError} or exception is an
 * answer; the reasons tell no driver, an old driver and no device apart; the ServiceLoader ranks cuda (30) before
 * hip (20) and host (0), {@code JCCL_MEMORY=cuda} fails with the reason and {@code auto} falls back.
 */
@Tag("integration")
class CudaDetectionTest {
    private static final String NATIVE_LIB_LINE = "Error while loading native library \"JCudaRuntime-12.6.0-"
            + "linux-x86_64\"\nOperating system name: Linux\n---(start of nested stack traces)---\n...";

    @Test
    void withoutTheDriverCudaIsUnavailableNamingTheCudaError() {
        NvidiaDriver.assumeAbsent();
        RuntimeLoad<CudaRuntime> load = CudaLibrary.shared();
        assertThat(load.loaded()).as("JCuda itself loads without a driver: %s", load.reason()).isTrue();
        assertThat(load.runtime().driverVersion()).as("cudaDriverGetVersion without a driver").isZero();
        assertThat(load.runtime().runtimeVersion()).as("the runtime inside JCuda").isGreaterThanOrEqualTo(12000);
        Availability a = new CudaMemoryDomainProvider().availability();
        assertThat(a.available()).isFalse();
        assertThat(a.reason()).startsWith("no NVIDIA driver is installed (libcuda.so.1 was not found")
                .contains("cudaGetDeviceCount() failed: cudaErrorInsufficientDriver (35): CUDA driver version is "
                        + "insufficient for CUDA runtime version", "[cuda memory domain]");
        assertThatThrownBy(() -> new CudaMemoryDomainProvider().open(0))
                .isInstanceOfSatisfying(JcclException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SYSTEM_ERROR);
                    assertThat(e.detail()).startsWith("the cuda memory domain is not available: no NVIDIA driver");
                });
        assertThatThrownBy(() -> new CudaMemoryDomainProvider().open(-1)).hasMessageContaining("must not be negative");
    }

    @Test
    void theReasonsTellNoDriverOldDriverAndNoDeviceApart() {
        String detail = "cudaGetDeviceCount() failed: ...";
        assertThat(CudaMemoryDomainProvider.noDevice(35, detail, 0, 12000))
                .isEqualTo("no NVIDIA driver is installed (libcuda.so.1 was not found; cudaDriverGetVersion reports "
                        + "none): " + detail);
        assertThat(CudaMemoryDomainProvider.noDevice(35, detail, 11040, 12060))
                .isEqualTo("the NVIDIA driver supports CUDA 11.4, older than the CUDA runtime inside JCuda 12.6.0 "
                        + "(12.6); update the driver: " + detail);
        assertThat(CudaMemoryDomainProvider.noDevice(100, detail, 12020, 12060))
                .isEqualTo("the NVIDIA driver reports no CUDA device: " + detail);
        assertThat(CudaMemoryDomainProvider.noDevice(3, detail, 12020, 12060))
                .isEqualTo("no usable CUDA device: " + detail);
        assertThat(CudaMemoryDomainProvider.version(-1)).isEqualTo("(unknown)");
    }

    private static Availability probeWith(Supplier<RuntimeLoad<CudaRuntime>> loader) {
        return new CudaMemoryDomainProvider(loader).availability();
    }

    @Test
    void whateverTheLoaderThrowsIsAnAnswer() {
        Availability noNatives = probeWith(() -> {
            throw new UnsatisfiedLinkError(NATIVE_LIB_LINE);
        });
        assertThat(noNatives.available()).isFalse();
        assertThat(noNatives.reason()).isEqualTo("JCuda's native library could not be loaded (Error while loading "
                + "native library \"JCudaRuntime-12.6.0-linux-x86_64\"); put the jcuda-natives:12.6.0 jar for "
                + CudaLibrary.platform() + " on the class path, or its library on java.library.path");
        assertThat(probeWith(() -> {
            throw new NoClassDefFoundError("Could not initialize class jcuda.runtime.JCuda");
        }).reason()).startsWith("JCuda failed to initialize earlier in this JVM (Could not initialize class "
                + "jcuda.runtime.JCuda)");
        assertThat(probeWith(() -> {
            throw new ExceptionInInitializerError(new IllegalStateException("boom"));
        }).reason()).isEqualTo("loading JCuda failed: java.lang.IllegalStateException: boom");
        assertThat(probeWith(() -> {
            throw new ExceptionInInitializerError(new UnsatisfiedLinkError("no JCudaRuntime in java.library.path"));
        }).reason()).startsWith("JCuda's native library could not be loaded (no JCudaRuntime in java.library.path)");
        assertThat(probeWith(() -> {
            throw new IllegalCallerException("native access denied");
        }).reason()).isEqualTo("loading JCuda failed: java.lang.IllegalCallerException: native access denied");
        assertThat(probeWith(() -> new RuntimeLoad<CudaRuntime>(null, "told so")).reason()).isEqualTo("told so");
        assertThat(CudaLibrary.platform()).isNotBlank();
    }

    @Test
    void aClassLoaderWithoutJCudaGivesAReason() throws IOException {
        try (URLClassLoader bare = new URLClassLoader(new URL[0], null)) {
            RuntimeLoad<CudaRuntime> load = CudaLibrary.load(bare);
            assertThat(load.loaded()).isFalse();
            assertThat(load.reason()).isEqualTo("JCuda is not on the class path (jcuda.runtime.JCuda: "
                    + "jcuda.runtime.JCuda); add org.jcuda:jcuda:12.6.0 and its jcuda-natives jar for this platform");
        }
    }

    /** Runs {@link DomainAvailabilityMain} in a JVM whose class path lacks the entries {@code drop} matches. */
    private static String childWithout(Predicate<String> drop, Path tmp, String... args) throws Exception {
        List<String> cp = new ArrayList<>(Arrays.asList(System.getProperty("java.class.path")
                .split(File.pathSeparator)));
        int before = cp.size();
        cp.removeIf(drop);
        assertThat(cp.size()).as("the class path had what the test removes").isLessThan(before);
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--enable-native-access")) {
                cmd.add(a);
            }
        }
        // Nowhere else to find JCuda's library: not on java.library.path, and no copy JCuda extracted earlier
        // (it looks for one in java.io.tmpdir).
        String hip = System.getProperty("jccl.hip.library");
        if (hip != null) {
            cmd.add("-Djccl.hip.library=" + hip);   // the stub, as in this JVM, never a ROCm of the machine
        }
        cmd.addAll(List.of("-Xmx128m", "-Djava.library.path=" + empty, "-Djava.io.tmpdir=" + empty, "-cp", String.join(File.pathSeparator, cp), DomainAvailabilityMain.class.getName()));
        cmd.addAll(List.of(args));
        Path out = tmp.resolve("child.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the child JVM did not finish in 60 s: " + Files.readString(out));
        }
        String text = Files.readString(out);
        assertThat(p.exitValue()).as("nothing escaped: %s", text).isZero();
        return text;
    }

    @Test
    void withoutTheNativesJarCudaIsUnavailableAndNothingEscapes(@org.junit.jupiter.api.io.TempDir Path tmp)
            throws Exception {
        String out = childWithout(e -> e.contains("jcuda-natives"), tmp, "cuda");
        assertThat(out).contains("cuda: unavailable: JCuda's native library could not be loaded (Error while loading "
                        + "native library \"JCudaRuntime-12.6.0-", "put the jcuda-natives:12.6.0 jar for ",
                "host: available", "open cuda: failed: SYSTEM_ERROR: JCCL_MEMORY=cuda: the cuda memory domain is not "
                        + "available: JCuda's native library could not be loaded")
                .doesNotContain("ESCAPED", "\tat ", "Exception in thread");
        assertThat(out).containsPattern("auto: (hip|host)");
    }

    @Test
    void withoutJCudaAtAllCudaIsUnavailableAndNothingEscapes(@org.junit.jupiter.api.io.TempDir Path tmp)
            throws Exception {
        String out = childWithout(e -> e.contains("jcuda"), tmp, "cuda");
        assertThat(out).contains("cuda: unavailable: JCuda is not on the class path (jcuda.runtime.JCuda",
                "host: available", "open cuda: failed: SYSTEM_ERROR: JCCL_MEMORY=cuda: the cuda memory domain is not "
                        + "available: JCuda is not on the class path")
                .doesNotContain("ESCAPED", "\tat ", "Exception in thread");
    }

    @Test
    void theServiceLoaderRanksCudaFirstAndANamedUnavailableCudaFailsWhileAutoFallsBack() {
        assertThat(MemoryDomains.providers()).extracting(MemoryDomainProvider::name)
                .containsExactly("cuda", "hip", "host");
        assertThat(MemoryDomains.providers().get(0).priority()).isEqualTo(CudaMemoryDomainProvider.PRIORITY);
        NvidiaDriver.assumeAbsent();
        assertThat(MemoryDomains.availability().get("cuda").available()).isFalse();
        CommConfig.Resolved cuda = CommConfig.DEFAULT.resolve(Map.of(CommConfig.MEMORY, "cuda"));
        assertThatThrownBy(() -> MemoryDomains.open(cuda, 0)).isInstanceOfSatisfying(JcclException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.SYSTEM_ERROR);
            assertThat(e.detail()).startsWith("JCCL_MEMORY=cuda: the cuda memory domain is not available: no NVIDIA "
                    + "driver is installed").contains("cudaErrorInsufficientDriver (35)");
        });
        assertThatThrownBy(() -> MemoryDomains.select("CUDA")).hasMessageContaining("JCCL_MEMORY=cuda");
        assertThat(MemoryDomains.select("auto").name()).as("auto passes over cuda").isNotEqualTo("cuda");
        List<MemoryDomainProvider> cudaAndHost = List.of(new CudaMemoryDomainProvider(),
                new HostMemoryDomainProvider());
        assertThat(MemoryDomains.select("auto", cudaAndHost).name()).isEqualTo("host");
    }
}
