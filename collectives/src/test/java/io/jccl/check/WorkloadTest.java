package io.jccl.check;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.plan.OpKind;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Workload#generate}: reproducible, covering, within bounds; spec and operation checks. */
class WorkloadTest {
    private static final WorkloadSpec SPEC = WorkloadSpec.defaults();

    @Test
    void sameSeedSameOperationsAndOtherSeedsDiffer() {
        List<WorkloadOp> first = Workload.generate(7, 4, 500, SPEC);
        assertThat(Workload.generate(7, 4, 500, SPEC)).isEqualTo(first);
        assertThat(Workload.generate(8, 4, 500, SPEC)).isNotEqualTo(first);
        assertThat(Workload.generate(-7, 4, 500, SPEC)).isNotEqualTo(first);
        // A shorter workload is a prefix of a longer one with the same seed: a failure at op k replays with k+1 ops.
        assertThat(Workload.generate(7, 4, 123, SPEC)).isEqualTo(first.subList(0, 123));
        for (int i = 0; i < first.size(); i++) {
            assertThat(first.get(i).index()).isEqualTo(i);
        }
        assertThat(Workload.opSeed(7, 3)).isNotEqualTo(Workload.opSeed(7, 4)).isNotEqualTo(Workload.opSeed(8, 3));
    }

    @Test
    void everyKindAndTypeWithinAFewHundredOperations() {
        List<WorkloadOp> ops = Workload.generate(1, 4, 300, SPEC);
        Set<OpKind> kinds = EnumSet.noneOf(OpKind.class);
        Set<DataType> types = EnumSet.noneOf(DataType.class);
        Set<ReduceOp.Kind> reductions = EnumSet.noneOf(ReduceOp.Kind.class);
        Set<Integer> roots = new HashSet<>();
        Set<String> placements = new HashSet<>();
        for (WorkloadOp op : ops) {
            kinds.add(op.kind());
            if (op.kind() != OpKind.BARRIER) {
                types.add(op.type());
            }
            if (op.op() != null) {
                reductions.add(op.op());
            }
            if (op.root() >= 0) {
                roots.add(op.root());
            }
            if (CollectiveCalls.hasInPlaceForm(op.kind())) {
                placements.add(op.kind() + (op.inPlace() ? " in" : " out"));
            }
        }
        assertThat(kinds).isEqualTo(Workload.KINDS);
        assertThat(types).containsExactlyInAnyOrder(DataType.values());
        assertThat(reductions).containsExactlyInAnyOrder(ReduceOp.Kind.values());
        assertThat(roots).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(placements).hasSize(14);   // 7 collectives with an in-place form, both ways
    }

    @Test
    void rounds_giveEveryKindOnceInEachRoundAndEveryTypeEveryReduction() {
        List<WorkloadOp> ops = Workload.generate(99, 3, 3000, SPEC);
        int k = Workload.KINDS.size();
        for (int round = 0; round + k <= ops.size(); round += k) {
            Set<OpKind> seen = EnumSet.noneOf(OpKind.class);
            ops.subList(round, round + k).forEach(op -> seen.add(op.kind()));
            assertThat(seen).as("kinds of ops %d to %d", round, round + k - 1).isEqualTo(Workload.KINDS);
        }
        Set<String> pairs = new HashSet<>();
        for (WorkloadOp op : ops) {
            if (op.op() != null) {
                pairs.add(op.type() + " " + op.op());
            }
        }
        assertThat(pairs).hasSize(DataType.values().length * ReduceOp.Kind.values().length);
    }

    @Test
    void countsFromEveryBucketAndWithinTheBytesPerRank() {
        long maxBytes = 64 << 10;
        WorkloadSpec spec = SPEC.withMaxBytesPerRank(maxBytes);
        int n = 4;
        List<WorkloadOp> ops = Workload.generate(5, n, 2000, spec);
        boolean zero = false;
        boolean one = false;
        boolean small = false;
        boolean medium = false;
        boolean large = false;
        try (CheckBuffers scratch = new CheckBuffers()) {
            for (WorkloadOp op : ops) {
                long c = op.count();
                long max = Workload.maxCount(op.kind(), op.type(), n, maxBytes);
                zero |= c == 0 && op.kind() != OpKind.BARRIER;
                one |= c == 1;
                small |= c > 1 && c < 100;
                medium |= c >= 100 && c <= 20_000 && c < max / 2;
                large |= max > 40_000 && c >= max / 2;
                assertThat(c).as(op.describe()).isLessThanOrEqualTo(max);
                CollectiveCheck check = Workload.check(op, n, 5, scratch);
                for (int r = 0; r < n; r++) {
                    long bytes = Math.max(check.sendElements(r), check.recvElements(r)) * op.type().sizeBytes();
                    assertThat(bytes).as("rank %d of %s", r, op.describe()).isLessThanOrEqualTo(maxBytes);
                }
            }
        }
        assertThat(List.of(zero, one, small, medium, large)).containsOnly(true);
    }

    @Test
    void onlyTheSpecsKinds() {
        WorkloadSpec spec = new WorkloadSpec(4096, Set.of(OpKind.BARRIER, OpKind.ALL_REDUCE));
        assertThat(Workload.generate(3, 2, 100, spec)).extracting(WorkloadOp::kind)
                .containsOnly(OpKind.BARRIER, OpKind.ALL_REDUCE);
        assertThat(Workload.generate(3, 1, 10, spec)).hasSize(10);
        assertThat(Workload.generate(3, 2, 0, spec)).isEmpty();
    }

    @Test
    void badArgumentsAreRefusedNamingThem() {
        assertThatThrownBy(() -> Workload.generate(1, 0, 10, SPEC)).hasMessageContaining("nRanks");
        assertThatThrownBy(() -> Workload.generate(1, 2, -1, SPEC)).hasMessageContaining("ops");
        assertThatThrownBy(() -> new WorkloadSpec(0, Workload.KINDS)).hasMessageContaining("maxBytesPerRank");
        assertThatThrownBy(() -> new WorkloadSpec((1L << 30) + 1, Workload.KINDS))
                .hasMessageContaining("maxBytesPerRank");
        assertThatThrownBy(() -> new WorkloadSpec(8, Set.of())).hasMessageContaining("kinds");
        assertThatThrownBy(() -> new WorkloadSpec(8, Set.of(OpKind.SPLIT))).hasMessageContaining("SPLIT");
        assertThatThrownBy(() -> new WorkloadOp(0, OpKind.ALL_REDUCE, DataType.INT8, null, 1, -1, false))
                .hasMessageContaining("needs a reduction");
        assertThatThrownBy(() -> new WorkloadOp(0, OpKind.BROADCAST, DataType.INT8, ReduceOp.Kind.SUM, 1, 0, false))
                .hasMessageContaining("takes no reduction");
        assertThatThrownBy(() -> new WorkloadOp(0, OpKind.BROADCAST, DataType.INT8, null, 1, -1, false))
                .hasMessageContaining("root -1");
        assertThatThrownBy(() -> new WorkloadOp(0, OpKind.ALL_GATHER, DataType.INT8, null, 1, 0, false))
                .hasMessageContaining("root 0");
        assertThatThrownBy(() -> new WorkloadOp(0, OpKind.ALL_TO_ALL, DataType.INT8, null, 1, -1, true))
                .hasMessageContaining("no in-place form");
        assertThatThrownBy(() -> new WorkloadOp(0, OpKind.P2P, DataType.INT8, null, -1, -1, false))
                .hasMessageContaining("count -1");
        assertThatThrownBy(() -> new WorkloadOp(-1, OpKind.BARRIER, DataType.INT8, null, 0, -1, false))
                .hasMessageContaining("index");
    }

    @Test
    void describeNamesEverything() {
        assertThat(new WorkloadOp(17, OpKind.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, 1031, -1, true)
                .describe()).isEqualTo("op 17: allReduce float32 sum count 1031 in-place");
        assertThat(new WorkloadOp(3, OpKind.GATHER, DataType.BFLOAT16, null, 7, 2, false).describe())
                .isEqualTo("op 3: gather bfloat16 count 7 root 2 out-of-place");
        assertThat(new WorkloadOp(4, OpKind.P2P, DataType.INT8, null, 7, -1, false).describe())
                .isEqualTo("op 4: send/recv int8 count 7");
        assertThat(new WorkloadOp(5, OpKind.BARRIER, DataType.INT8, null, 0, -1, false).describe())
                .isEqualTo("op 5: barrier");
    }

    @Test
    void theReferenceUsesNoKernelsOfTheLibrary() throws Exception {
        // The expected outputs must not come from the code under test: the check package may use the library's
        // public types and the fp16/bf16/fp8 codecs (tested exhaustively on their own), nothing of the kernels.
        java.nio.file.Path dir = java.nio.file.Path.of("src/main/java/io/jccl/check");
        try (var files = java.nio.file.Files.list(dir)) {
            for (java.nio.file.Path f : files.toList()) {
                for (String line : java.nio.file.Files.readAllLines(f)) {
                    if (line.startsWith("import io.jccl.reduce.")) {
                        assertThat(line).as(f.toString()).matches(
                                "import io\\.jccl\\.reduce\\.(BFloat16|Float8E4M3|Float8E5M2);");
                    }
                    assertThat(line).as(f.toString()).doesNotContain("Reducer").doesNotContain("Kernels");
                }
            }
        }
    }
}
