package io.jccl.memory.hip;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.memory.Availability;
import io.jccl.memory.HostMemoryDomainProvider;
import io.jccl.memory.MemoryDomainProvider;
import io.jccl.memory.MemoryDomains;
import io.jccl.memory.RuntimeLoad;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Finding the HIP runtime and telling users why it is unavailable: the candidate list (override alone; versioned
 * sonames, then ROCm's directories), libraries that do not exist or are not HIP, a runtime without devices, and a
 * loader that throws a LinkageError — each an {@link Availability} with a reason, nothing thrown.
 */
class HipLibraryTest {
    @Test
    void candidatesAreTheOverrideAloneOrVersionedSonamesThenRocmDirectories() {
        assertThat(HipLibrary.candidates("/x/libamdhip64.so", "/ignored")).containsExactly("/x/libamdhip64.so");
        List<String> c = HipLibrary.candidates(null, "/opt/rocm-6.3.1");
        assertThat(c.subList(0, 4)).containsExactly("libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
                "libamdhip64.so");
        assertThat(c).contains("/opt/rocm-6.3.1/lib/libamdhip64.so.6", "/opt/rocm/lib/libamdhip64.so.7");
        assertThat(c.indexOf("/opt/rocm-6.3.1/lib/libamdhip64.so.7"))
                .isLessThan(c.indexOf("/opt/rocm/lib/libamdhip64.so.7"));
        assertThat(HipLibrary.candidates(null, null)).hasSize(8);
    }

    @Test
    void missingLibrariesGiveAReasonNotAnException() {
        RuntimeLoad<HipRuntime> load = HipLibrary.load(List.of("/nonexistent/libamdhip64.so", "libamdhip64.so.99"));
        assertThat(load.loaded()).isFalse();
        assertThat(load.reason()).contains("the HIP runtime (libamdhip64) was not found",
                "/nonexistent/libamdhip64.so (cannot be loaded)", "libamdhip64.so.99 (cannot be loaded)",
                "JCCL_HIP_LIBRARY", "-Djccl.hip.library");
    }

    @Test
    void aLibraryWithoutHipFunctionsIsNotTaken() {
        RuntimeLoad<HipRuntime> load = HipLibrary.load(List.of("libc.so.6"));
        assertThat(load.loaded()).isFalse();
        assertThat(load.reason()).contains("libc.so.6 (loaded, but has no hipGetDeviceCount: not a HIP runtime");
    }

    @Test
    void theStubLoadsAfterFailedCandidates() {
        HipStub.assumeBuilt();
        RuntimeLoad<HipRuntime> load = HipLibrary.load(List.of("/nonexistent/libamdhip64.so.6",
                HipStub.path().toString()));
        assertThat(load.loaded()).as(load.reason()).isTrue();
        assertThat(load.runtime().library()).isEqualTo(HipStub.path().toString());
        assertThat(load.runtime().getDeviceCount()).isEqualTo(HipStub.DEVICES);
    }

    @Test
    void anUnavailableProviderSaysWhyAndAutoFallsBackToHost() {
        HipMemoryDomainProvider hip = new HipMemoryDomainProvider(
                () -> HipLibrary.load(List.of("/nonexistent/libamdhip64.so")));
        Availability a = hip.availability();
        assertThat(a.available()).isFalse();
        assertThat(a.reason()).contains("/nonexistent/libamdhip64.so (cannot be loaded)");
        assertThatThrownBy(() -> hip.open(0)).isInstanceOfSatisfying(JcclException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.SYSTEM_ERROR);
            assertThat(e.detail()).contains("the hip memory domain is not available", "cannot be loaded");
        });
        List<MemoryDomainProvider> both = List.of(hip, new HostMemoryDomainProvider());
        assertThat(MemoryDomains.select("auto", both).name()).isEqualTo("host");
        assertThatThrownBy(() -> MemoryDomains.select("hip", both))
                .isInstanceOfSatisfying(JcclException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SYSTEM_ERROR);
                    assertThat(e.detail()).contains("JCCL_MEMORY=hip: the hip memory domain is not available",
                            "libamdhip64");
                });
    }

    @Test
    void aLoaderThatThrowsALinkageErrorIsAnAnswerToo() {
        HipMemoryDomainProvider hip = new HipMemoryDomainProvider(() -> {
            throw new UnsatisfiedLinkError("libamdhip64.so: cannot open shared object file");
        });
        Availability a = hip.availability();
        assertThat(a.available()).isFalse();
        assertThat(a.reason()).contains("probing the HIP runtime failed", "UnsatisfiedLinkError",
                "cannot open shared object file");
    }

    @Test
    void aRuntimeWithoutDevicesIsUnavailable() {
        HipStub.assumeBuilt();
        HipStub.setDeviceCount(0);
        try {
            HipMemoryDomainProvider hip = new HipMemoryDomainProvider(HipLibrary::shared);
            assertThat(hip.availability().reason()).contains("no HIP device", "hipGetDeviceCount()",
                    "hipErrorNoDevice (100)");
        } finally {
            HipStub.setDeviceCount(HipStub.DEVICES);
        }
        assertThat(new HipMemoryDomainProvider(HipLibrary::shared).availability().available()).isTrue();
    }

    @Test
    void theServiceLoaderFindsHipBeforeHost() {
        HipStub.assumeBuilt();
        assertThat(MemoryDomains.providers()).extracting(MemoryDomainProvider::name)
                .containsExactly("cuda", "hip", "host");
        boolean cuda = MemoryDomains.availability().get("cuda").available();
        assertThat(MemoryDomains.select("auto").name()).as("the stub is available; only CUDA ranks higher")
                .isEqualTo(cuda ? "cuda" : "hip");
        assertThat(MemoryDomains.availability()).containsKeys("hip", "host");
    }
}
