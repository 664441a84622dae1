package io.jccl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Options: defaults, environment, explicit settings winning over it, and every bad value named. */
class CommConfigTest {
    @Test
    void defaultsApplyWithoutEnvironment() {
        CommConfig.Resolved r = CommConfig.DEFAULT.resolve(Map.of());
        assertThat(r.opTimeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(r.initTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(r.algorithm()).isEqualTo(Algorithm.AUTO);
        assertThat(r.chunkSizeBytes()).isZero();
        assertThat(r.transport()).isNull();
        assertThat(r.maxPendingOps()).isEqualTo(1024);
    }

    @Test
    void environmentIsReadAndExplicitSettingsWin() {
        Map<String, String> env = Map.of("JCCL_OP_TIMEOUT_MS", "1500", "JCCL_ALGO", "Tree", "JCCL_CHUNK_SIZE", "512K",
                "JCCL_NET", " TCP ", "JCCL_MAX_PENDING_OPS", "7", "PATH", "/bin", "JCCL_SOCKET_IFNAME", "eth");
        CommConfig.Resolved fromEnv = CommConfig.DEFAULT.resolve(env);
        assertThat(fromEnv.opTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(fromEnv.algorithm()).isEqualTo(Algorithm.TREE);
        assertThat(fromEnv.chunkSizeBytes()).isEqualTo(512 << 10);
        assertThat(fromEnv.transport()).isEqualTo("tcp");
        assertThat(fromEnv.maxPendingOps()).isEqualTo(7);
        assertThat(fromEnv.options()).containsEntry("JCCL_SOCKET_IFNAME", "eth").doesNotContainKey("PATH");

        CommConfig explicit = CommConfig.builder().opTimeout(Duration.ofSeconds(3)).algorithm(Algorithm.RING)
                .chunkSizeBytes(65536).transport("local").maxPendingOps(9).option("JCCL_SOCKET_IFNAME", "=lo").build();
        CommConfig.Resolved both = explicit.resolve(env);
        assertThat(both.opTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(both.algorithm()).isEqualTo(Algorithm.RING);
        assertThat(both.chunkSizeBytes()).isEqualTo(65536);
        assertThat(both.transport()).isEqualTo("local");
        assertThat(both.maxPendingOps()).isEqualTo(9);
        assertThat(both.options()).containsEntry("JCCL_SOCKET_IFNAME", "=lo");
    }

    @ParameterizedTest
    @CsvSource({
            "JCCL_OP_TIMEOUT_MS, soon",
            "JCCL_OP_TIMEOUT_MS, -1",
            "JCCL_INIT_TIMEOUT_MS, 1.5",
            "JCCL_ALGO, rinng",
            "JCCL_CHUNK_SIZE, 1K",
            "JCCL_CHUNK_SIZE, 1G",
            "JCCL_CHUNK_SIZE, lots",
            "JCCL_MAX_PENDING_OPS, 0",
            "JCCL_MAX_PENDING_OPS, many",
            "JCCL_SPIN_US, -1",
            "JCCL_SPIN_US, 1000001",
            "JCCL_SPIN_US, 1.5",
            "JCCL_IDLE_SPIN_US, forever",
            "JCCL_YIELD_US, soon",
            "JCCL_YIELD_US, 2000000",
            "JCCL_WARMUP_MS, -1",
            "JCCL_WARMUP_MS, 60001",
            "JCCL_WARMUP_MS, soon",
    })
    void badEnvironmentValuesAreNamed(String key, String value) {
        assertThatThrownBy(() -> CommConfig.DEFAULT.resolve(Map.of(key, value)))
                .isInstanceOfSatisfying(JcclException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains(key).contains(value.trim());
                });
    }

    @Test
    void spinTimesAreAutomaticUnlessSet() {
        CommConfig.Resolved auto = CommConfig.DEFAULT.resolve(Map.of());
        assertThat(auto.spinMicros()).isEqualTo(CommConfig.SPIN_AUTO);
        assertThat(auto.idleSpinMicros()).isEqualTo(CommConfig.SPIN_AUTO);
        assertThat(auto.yieldMicros()).isEqualTo(CommConfig.SPIN_AUTO);
        Map<String, String> variables = Map.of("JCCL_SPIN_US", " 0 ", "JCCL_IDLE_SPIN_US", "250",
                "JCCL_YIELD_US", "75");
        CommConfig.Resolved env = CommConfig.DEFAULT.resolve(variables);
        assertThat(env.spinMicros()).isZero();
        assertThat(env.idleSpinMicros()).isEqualTo(250);
        assertThat(env.yieldMicros()).isEqualTo(75);
        CommConfig.Resolved built = CommConfig.builder().spin(Duration.ofMillis(1)).idleSpin(Duration.ofNanos(20_500))
                .yieldTime(Duration.ZERO).build().resolve(variables);
        assertThat(built.spinMicros()).isEqualTo(1000);
        assertThat(built.idleSpinMicros()).isEqualTo(20);
        assertThat(built.yieldMicros()).as("set in CommConfig: wins over the environment").isZero();
        assertThatThrownBy(() -> CommConfig.builder().spin(Duration.ofSeconds(-1)))
                .isInstanceOf(JcclException.class).hasMessageContaining("JCCL_SPIN_US");
        assertThatThrownBy(() -> CommConfig.builder().idleSpin(Duration.ofDays(1)))
                .isInstanceOf(JcclException.class).hasMessageContaining("JCCL_IDLE_SPIN_US");
        assertThatThrownBy(() -> CommConfig.builder().yieldTime(Duration.ofSeconds(3)))
                .isInstanceOf(JcclException.class).hasMessageContaining("JCCL_YIELD_US");
    }

    @Test
    void warmupIsAtMostTwoSecondsUnlessSet() {
        assertThat(CommConfig.DEFAULT.resolve(Map.of()).warmup()).isEqualTo(Duration.ofSeconds(2));
        assertThat(CommConfig.DEFAULT.resolve(Map.of("JCCL_WARMUP_MS", " 0 ")).warmup()).isZero();
        assertThat(CommConfig.builder().warmup(Duration.ofSeconds(2)).build()
                .resolve(Map.of("JCCL_WARMUP_MS", "0")).warmup()).isEqualTo(Duration.ofSeconds(2));
        assertThatThrownBy(() -> CommConfig.builder().warmup(Duration.ofMillis(-1)))
                .isInstanceOf(JcclException.class).hasMessageContaining("JCCL_WARMUP_MS");
        assertThatThrownBy(() -> CommConfig.builder().warmup(Duration.ofMinutes(2)))
                .isInstanceOf(JcclException.class).hasMessageContaining("JCCL_WARMUP_MS");
    }

    @Test
    void badBuilderValuesAreRefusedAtOnce() {
        assertThatThrownBy(() -> CommConfig.builder().opTimeout(Duration.ofMillis(-1)))
                .isInstanceOf(JcclException.class).hasMessageContaining("JCCL_OP_TIMEOUT_MS");
        assertThatThrownBy(() -> CommConfig.builder().chunkSizeBytes(100))
                .isInstanceOf(JcclException.class).hasMessageContaining("chunkSizeBytes");
        assertThatThrownBy(() -> CommConfig.builder().maxPendingOps(0))
                .isInstanceOf(JcclException.class).hasMessageContaining("maxPendingOps");
        assertThatThrownBy(() -> CommConfig.builder().option("ALGO", "ring"))
                .isInstanceOf(JcclException.class).hasMessageContaining("must start with JCCL_");
        assertThatThrownBy(() -> CommConfig.builder().option("JCCL_ALGO", "fastest"))
                .isInstanceOf(JcclException.class).hasMessageContaining("fastest");
        assertThatThrownBy(() -> CommConfig.builder().transport(" "))
                .isInstanceOf(JcclException.class).hasMessageContaining("blank");
        CommConfig c = CommConfig.builder().chunkSizeBytes(8192).chunkSizeBytes(0).transport("tcp").transport(null)
                .build();
        assertThat(c.options()).isEmpty();
        assertThat(c).isEqualTo(CommConfig.DEFAULT).hasSameHashCodeAs(CommConfig.DEFAULT);
    }

    @Test
    void memoryDomainIsAutoUnlessChosen() {
        assertThat(CommConfig.DEFAULT.resolve(Map.of()).memory()).isEqualTo("auto");
        assertThat(CommConfig.DEFAULT.resolve(Map.of("JCCL_MEMORY", " HIP ")).memory()).isEqualTo("hip");
        CommConfig host = CommConfig.builder().memory("Host").build();
        assertThat(host.resolve(Map.of("JCCL_MEMORY", "cuda")).memory()).as("the builder wins").isEqualTo("host");
        assertThat(CommConfig.builder().memory("cuda").memory(null).build().options()).doesNotContainKey("JCCL_MEMORY");
        assertThatThrownBy(() -> CommConfig.builder().memory("gpu")).isInstanceOf(JcclException.class)
                .hasMessageContaining("memory: JCCL_MEMORY='gpu' is invalid: it must be one of auto, host, hip, cuda");
        assertThatThrownBy(() -> CommConfig.DEFAULT.resolve(Map.of("JCCL_MEMORY", "rocm")))
                .isInstanceOf(JcclException.class).hasMessageContaining("JCCL_MEMORY='rocm'")
                .hasMessageContaining("from the environment");
        assertThatThrownBy(() -> CommConfig.builder().option("JCCL_HIP_LIBRARY", "/x/libamdhip64.so"))
                .isInstanceOf(JcclException.class).hasMessageContaining("applies to the whole JVM");
    }

    @Test
    void sizesParseWithBinarySuffixes() {
        assertThat(CommConfig.parseBytes("4096")).isEqualTo(4096);
        assertThat(CommConfig.parseBytes("512k")).isEqualTo(512L << 10);
        assertThat(CommConfig.parseBytes("64M")).isEqualTo(64L << 20);
        assertThat(CommConfig.parseBytes("64MB")).isEqualTo(64L << 20);
        assertThat(CommConfig.parseBytes("2G")).isEqualTo(2L << 30);
        for (String bad : new String[] {"", "M", "-1", "1.5M", "12Q", "99999999999T"}) {
            assertThatThrownBy(() -> CommConfig.parseBytes(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void namesParseAsUsersWriteThem() {
        assertThat(DataType.parse("half")).isEqualTo(DataType.FLOAT16);
        assertThat(DataType.parse("BF16")).isEqualTo(DataType.BFLOAT16);
        assertThat(DataType.parse("f8e4m3")).isEqualTo(DataType.FLOAT8_E4M3);
        assertThatThrownBy(() -> DataType.parse("float128")).hasMessageContaining("float128");
        assertThat(ReduceOp.parse("AVG")).isEqualTo(ReduceOp.AVG);
        assertThat(ReduceOp.parse("premulsum").kind()).isEqualTo(ReduceOp.Kind.PRE_MUL_SUM);
        assertThatThrownBy(() -> ReduceOp.parse("xor")).hasMessageContaining("xor");
        assertThat(Algorithm.parse("RD")).isEqualTo(Algorithm.RECURSIVE_DOUBLING);
    }

    @Test
    void preMulSumScalarsMustFitIntegerTypes() {
        assertThat(ReduceOp.preMulSum(0.5).unsupportedReason(DataType.INT32)).contains("whole number");
        assertThat(ReduceOp.preMulSum(Double.NaN).unsupportedReason(DataType.INT64)).contains("whole number");
        assertThat(ReduceOp.preMulSum(128).unsupportedReason(DataType.INT8)).contains("outside");
        assertThat(ReduceOp.preMulSum(127).unsupportedReason(DataType.INT8)).isNull();
        assertThat(ReduceOp.preMulSum(-1).unsupportedReason(DataType.UINT8)).contains("outside");
        assertThat(ReduceOp.preMulSum(0x1p63).unsupportedReason(DataType.INT64)).contains("outside");
        assertThat(ReduceOp.preMulSum(-0x1p63).unsupportedReason(DataType.INT64)).isNull();
        assertThat(ReduceOp.preMulSum(0x1p64).unsupportedReason(DataType.UINT64)).contains("outside");
        assertThat(ReduceOp.preMulSum(0x1p63).unsupportedReason(DataType.UINT64)).isNull();
        assertThat(ReduceOp.preMulSum(0.5).unsupportedReason(DataType.FLOAT16)).isNull();
        assertThat(ReduceOp.SUM.unsupportedReason(DataType.FLOAT8_E5M2)).isNull();
    }
}
