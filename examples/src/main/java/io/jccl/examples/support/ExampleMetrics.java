package io.jccl.examples.support;

import io.jccl.cli.metrics.MetricsEndpoint;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;

import java.time.Duration;

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
 */
public final class ExampleMetrics implements AutoCloseable {
    /** The value of {@code --metrics-port} that turns metrics off. */
    public static final int OFF = -1;

    private final MetricsEndpoint endpoint;
    private final Counter epochs;
    // Written by the training thread, read by the HTTP thread on a scrape.
    private volatile double loss = Double.NaN;
    private volatile double accuracy = Double.NaN;

    private ExampleMetrics(MetricsEndpoint endpoint, String example) {
        this.endpoint = endpoint;
        if (endpoint == null) {
            epochs = null;
            return;
        }
        Gauge.builder("jccl.example.loss", this, m -> m.loss).tag("example", example)
                .description("latest full-data training loss").register(endpoint.registry());
        Gauge.builder("jccl.example.accuracy", this, m -> m.accuracy).tag("example", example)
                .description("latest training accuracy, 0 to 1").register(endpoint.registry());
        epochs = Counter.builder("jccl.example.epochs").tag("example", example)
                .description("epochs or iterations completed").register(endpoint.registry());
    }

    /**
     * Serves {@code http://127.0.0.1:(basePort + rank)/metrics}, as {@code jccl bench collective --metrics-port}
     * does, so that the ranks of one host do not collide; {@code basePort} 0 picks a free port per rank.
     *
     * @param basePort {@link #OFF}, 0, or the port of rank 0
     * @param rank     this process's rank (0 for a single process)
     * @param example  the {@code example} tag of the progress meters
     * @return the metrics, off when {@code basePort} is {@link #OFF}
     * @throws IllegalArgumentException when {@code basePort + rank} is not a port
     * @throws java.io.UncheckedIOException when the port cannot be bound
     */
    public static ExampleMetrics start(int basePort, int rank, String example) {
        if (basePort == OFF) {
            return new ExampleMetrics(null, example);
        }
        if (basePort < 0 || rank < 0 || (basePort > 0 && basePort + (long) rank > 65535)) {
            throw new IllegalArgumentException("--metrics-port " + basePort + " + rank " + rank + " is not a port");
        }
        return new ExampleMetrics(MetricsEndpoint.start(basePort == 0 ? 0 : basePort + rank), example);
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
     * Records one completed epoch or iteration.
     *
     * @param lossNow     the training loss after it
     * @param accuracyNow the training accuracy after it, 0 to 1 (NaN when not computed)
     */
    public void epochDone(double lossNow, double accuracyNow) {
        if (endpoint != null) {
            loss = lossNow;
            accuracy = accuracyNow;
            epochs.increment();
        }
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
}
