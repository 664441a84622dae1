package io.jccl.metrics;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * More meters that {@link JcclMetrics} binds along with its own, found with {@link java.util.ServiceLoader}: a
 * transport module lists its implementation in {@code META-INF/services/io.jccl.metrics.MetricsExtension} (the
 * MetaRoCE transport's per-path gauges and protocol counters are one). Extensions poll read-only snapshots of
 * their state from the scraping thread; they never hook the data path.
 */
public interface MetricsExtension {
    /** Registers what exists now. Called once per registry, from {@link JcclMetrics#bindTo(MeterRegistry)}. */
    void bindTo(MeterRegistry registry);

    /**
     * Registers meters for things that appeared since the last call (new transports, connections, paths) and
     * removes those of things that are gone. Called by {@link JcclMetrics#refresh()}, e.g. before each scrape.
     */
    void refresh();
}
