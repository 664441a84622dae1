package io.jccl.examples.support;

import io.jccl.Communicator;
import io.jccl.examples.sgd.DataParallelSgd;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExampleMetricsTest {
    @Test
    void aScrapeShowsTheAllReducesAndTheTrainingProgress() throws Exception {
        DataParallelSgd.Options options = DataParallelSgd.Options.parse("--examples", "2048", "--features", "4",
                "--batch", "256", "--epochs", "3");
        List<Communicator> comms = Communicator.local(2);
        try (ExampleMetrics metrics = ExampleMetrics.start(0, 0)) {
            ExampleMetrics.Progress progress = metrics.progress("sgd");
            List<CompletableFuture<?>> ranks = new ArrayList<>();
            for (Communicator c : comms) {
                // Rank 0 reports progress, as the example's main does; both ranks' all-reduces are counted.
                ranks.add(CompletableFuture.runAsync(() -> DataParallelSgd.train(options, c, s -> {
                    if (c.rank() == 0) {
                        progress.epochDone(s.loss(), s.accuracy());
                    }
                }), Executors.newVirtualThreadPerTaskExecutor()));
            }
            for (CompletableFuture<?> r : ranks) {
                r.get(60, TimeUnit.SECONDS);
            }
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + metrics.port() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            // 8 steps per epoch x 3 epochs + 4 evaluations = 28 all-reduces per rank, 56 in this JVM.
            assertThat(response.body())
                    .containsPattern("jccl_collective_seconds_count\\{algorithm=\"[a-z_]+\",collective=\"allReduce\","
                            + "transport=\"local\",type=\"float64\"} 56")
                    .containsPattern("jccl_example_loss\\{example=\"sgd\"} 0\\.[0-9]+")
                    .containsPattern("jccl_example_accuracy\\{example=\"sgd\"} 0\\.[0-9]+")
                    // Epoch 0 (before training) is reported too.
                    .contains("jccl_example_epochs_total{example=\"sgd\"} 4.0");
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void offDoesNothingAndBadPortsAreRefused() throws Exception {
        try (ExampleMetrics off = ExampleMetrics.start(ExampleMetrics.OFF, 3)) {
            off.progress("sgd").epochDone(0.5, 0.5);
            off.linger(java.time.Duration.ofHours(1));
            assertThat(off.enabled()).isFalse();
            assertThat(off.port()).isEqualTo(ExampleMetrics.OFF);
            assertThat(off.scrape()).isEmpty();
        }
        assertThatThrownBy(() -> ExampleMetrics.start(65535, 1)).hasMessageContaining("is not a port");
    }
}
