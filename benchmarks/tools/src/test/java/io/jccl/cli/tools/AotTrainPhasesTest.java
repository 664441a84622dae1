package io.jccl.cli.tools;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the AOT cache's training run runs. */
class AotTrainPhasesTest {
    @Test
    void theTrainingPhasesRunEveryCollectiveOverEachTransportAndTheTargetSizeOverShm() {
        List<List<String>> shm = AotTrainCommand.phaseArgs("shm", false, "8M");
        assertThat(shm).anySatisfy(a -> assertThat(a).startsWith("all_reduce,all_gather,reduce_scatter,broadcast,"
                + "reduce,alltoall,sendrecv").containsSubsequence("-e", "8M"));
        assertThat(shm).anySatisfy(a -> assertThat(a).containsSubsequence("-d", "all", "-o", "all"));
        assertThat(AotTrainCommand.phaseArgs("metaroce", false, "8M")).singleElement()
                .satisfies(a -> assertThat(a.getFirst()).contains("all_reduce", "alltoall", "sendrecv"));
        assertThat(AotTrainCommand.phaseArgs("tcp", true, "8M")).hasSize(1);
    }
}
