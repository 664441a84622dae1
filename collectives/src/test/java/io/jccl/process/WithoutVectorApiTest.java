package io.jccl.process;

import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** An application that does not add jdk.incubator.vector still gets exact results (scalar kernels). */
@Tag("integration")
class WithoutVectorApiTest {
    @Test
    void collectivesWorkWithoutTheVectorApiModule() throws Exception {
        List<String> options = JvmProcesses.inheritedJvmOptions().stream()
                .filter(o -> !o.contains("jdk.incubator.vector")).toList();
        Jvm jvm = JvmProcesses.start(WithoutVectorApiMain.class, List.of(), Map.of(), "without-vector-api", options);
        assertThat(jvm.await(180)).as("exit code; output:%n%s", jvm.outputText()).isZero();
        assertThat(jvm.outputText()).contains("VECTOR_KERNELS=false").contains("RESULT OK")
                .contains("--add-modules=jdk.incubator.vector for the SIMD kernels");
    }
}
