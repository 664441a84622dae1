package io.jccl.examples.support;

import io.jccl.cli.metrics.MetricsEndpoint;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An example's {@code --metrics-port}: the launcher's Prometheus {@link MetricsEndpoint} (every communicator's
 * collective timers and byte counters, docs/metrics.md) plus the training progress of the example:
 *
 * <ul>
 * <li>{@code jccl_example_loss{example=...}}: the latest full-data training loss;</li>
 * <li>{@code jccl_example_accuracy{example=...}}: the latest training accuracy, 0 to 1;</li>
 * <li>{@code jccl_example_epochs_total{example=...}}: epochs (or iterations) completed.</li>
 * </ul>
 *
 * When metrics are off every method does nothing, so the training code calls them unconditionally.
 * {@link #progress(String)} gives one example's meters; one endpoint may carry several (the Spark example reports
 * {@code spark-jccl} and {@code spark-mllib}).
 */
public final class ExampleMetrics implements AutoCloseable {
    /** The value of {@code --metrics-port} that turns metrics off. */
    public static final int OFF = -1;

    private final MetricsEndpoint endpoint;
    private final Map<String, Progress> progress = new ConcurrentHashMap<>();

    private ExampleMetrics(MetricsEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /**
     * Serves {@code http://127.0.0.1:(basePort + localRank)/metrics}, as {@code jccl perf --metrics-port} does
     * ({@link MetricsEndpoint#startForRank}): the ranks of one host do not collide; {@code basePort} 0 picks a free
     * port per process.
     *
     * @param basePort  {@link #OFF}, 0, or the port of the host's first rank
     * @param localRank this process's index among the ranks of its host (0 for a single process)
     * @return the metrics, off when {@code basePort} is {@link #OFF}
     * @throws IllegalArgumentException when {@code basePort + localRank} is not a port
     * @throws java.io.UncheckedIOException when the port cannot be bound
     */
    public static ExampleMetrics start(int basePort, int localRank) {
        if (basePort == OFF) {
            return new ExampleMetrics(null);
        }
        return new ExampleMetrics(MetricsEndpoint.startForRank(basePort, localRank));
    }

    /** @return whether metrics are served */
    public boolean enabled() {
        return endpoint != null;
    }

    /** @return the port served, or {@link #OFF} */
    public int port() {
        return endpoint == null ? OFF : endpoint.port();
    }

    /** @return the Prometheus text now, or "" when off (for tests and a final print) */
    public String scrape() {
        return endpoint == null ? "" : endpoint.scrape();
    }

    /**
     * @param example the {@code example} tag, e.g. {@code sgd}
     * @return the progress meters of that example (the same object for the same tag)
     */
    public Progress progress(String example) {
        return progress.computeIfAbsent(example, e -> new Progress(endpoint, e));
    }

    /**
     * Keeps serving for {@code time} so that a scraper sees the final values of a short run; returns at once when
     * metrics are off.
     *
     * @param time how long
     * @throws InterruptedException when interrupted while waiting
     */
    public void linger(Duration time) throws InterruptedException {
        if (endpoint != null && time.isPositive()) {
            Thread.sleep(time);
        }
    }

    @Override
    public void close() {
        if (endpoint != null) {
            endpoint.close();
        }
    }

    /** One example's progress meters; does nothing when metrics are off. */
    public static final class Progress {
        private final Counter epochs;
        // Written by the training thread, read by the HTTP thread on a scrape.
        private volatile double loss = Double.NaN;
        private volatile double accuracy = Double.NaN;

        private Progress(MetricsEndpoint endpoint, String example) {
            if (endpoint == null) {
                epochs = null;
                return;
            }
            Gauge.builder("jccl.example.loss", this, p -> p.loss).tag("example", example)
                    .description("latest full-data training loss").register(endpoint.registry());
            Gauge.builder("jccl.example.accuracy", this, p -> p.accuracy).tag("example", example)
                    .description("latest accuracy, 0 to 1").register(endpoint.registry());
            epochs = Counter.builder("jccl.example.epochs").tag("example", example)
                    .description("passes over the data completed (SGD epochs, L-BFGS iterations)")
                    .register(endpoint.registry());
        }

        /**
         * Records one completed epoch.
         *
         * @param lossNow     the training loss after it
         * @param accuracyNow the accuracy after it, 0 to 1 (NaN when not computed)
         */
        public void epochDone(double lossNow, double accuracyNow) {
            epochsDone(1, lossNow, accuracyNow);
        }

        /**
         * Records {@code count} completed epochs (or iterations) at once, e.g. a whole training run.
         *
         * @param count       how many, 0 or more
         * @param lossNow     the training loss after them
         * @param accuracyNow the accuracy after them, 0 to 1 (NaN when not computed)
         */
        public void epochsDone(long count, double lossNow, double accuracyNow) {
            if (epochs != null) {
                loss = lossNow;
                accuracy = accuracyNow;
                epochs.increment(count);
            }
        }
    }
}
