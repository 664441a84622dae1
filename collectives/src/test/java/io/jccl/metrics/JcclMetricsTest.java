package io.jccl.metrics;

import io.jccl.Algorithm;
import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The collective meters after a run of known operations on 4 in-JVM ranks. */
class JcclMetricsTest {
    private static final int OPS = 10;
    private static final int COUNT = 1024;

    @Test
    void countsEveryAllReduceOfEveryRankWithItsTags() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (JcclMetrics metrics = new JcclMetrics()) {
            metrics.bindTo(registry);
            List<Communicator> comms = Communicator.local(4, CommConfig.builder().algorithm(Algorithm.RING).build());
            try {
                allReduces(comms);
            } finally {
                comms.forEach(Communicator::close);
            }
        }
        Timer timer = registry.get("jccl.collective").tag("collective", "allReduce").timer();
        assertThat(timer.getId().getTag("type")).isEqualTo("float32");
        assertThat(timer.getId().getTag("algorithm")).isEqualTo("ring");
        assertThat(timer.getId().getTag("transport")).isEqualTo("local");
        assertThat(timer.count()).as("4 ranks x %d all-reduces", OPS).isEqualTo(4L * OPS);
        assertThat(timer.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS)).isPositive();
        Counter bytes = registry.get("jccl.collective.bytes").tag("collective", "allReduce").counter();
        assertThat(bytes.getId().getBaseUnit()).isEqualTo("bytes");
        assertThat(bytes.count()).isEqualTo(4.0 * OPS * COUNT * 4);
    }

    @Test
    void aBinderForOneCommunicatorCountsOnlyItsOperations() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<Communicator> comms = Communicator.local(4, CommConfig.builder().algorithm(Algorithm.RING).build());
        try (JcclMetrics metrics = JcclMetrics.of(comms.get(2))) {
            metrics.bindTo(registry);
            allReduces(comms);
            comms.stream().map(Communicator::barrier).toList().forEach(CollectiveFuture::await);
        } finally {
            comms.forEach(Communicator::close);
        }
        Timer timer = registry.get("jccl.collective").tags("collective", "allReduce", "type", "float32",
                "algorithm", "ring", "transport", "local").timer();
        assertThat(timer.count()).isEqualTo(OPS);
        assertThat(registry.get("jccl.collective.bytes").tag("collective", "allReduce").counter().count())
                .isEqualTo((double) OPS * COUNT * 4);
        Timer barrier = registry.get("jccl.collective").tag("collective", "barrier").timer();
        assertThat(barrier.count()).isEqualTo(1);
        assertThat(barrier.getId().getTag("type")).isEqualTo("none");
    }

    private static void allReduces(List<Communicator> comms) {
        float[][] bufs = new float[comms.size()][COUNT];
        for (int i = 0; i < OPS; i++) {
            List<CollectiveFuture> pending = new ArrayList<>();
            for (Communicator c : comms) {
                pending.add(c.allReduce(Buffer.of(bufs[c.rank()]), Buffer.of(bufs[c.rank()]), COUNT, DataType.FLOAT32,
                        ReduceOp.SUM));
            }
            pending.forEach(CollectiveFuture::await);
        }
    }
}
