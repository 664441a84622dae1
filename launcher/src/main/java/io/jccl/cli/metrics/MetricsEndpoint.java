package io.jccl.cli.metrics;

import com.sun.net.httpserver.HttpServer;
import io.jccl.metrics.JcclMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * A Prometheus scrape endpoint: {@code GET /metrics} answers the text format of a {@link PrometheusMeterRegistry}
 * to which a {@link JcclMetrics} for every communicator of the JVM is bound. JDK HTTP server, one daemon thread.
 *
 * <pre>{@code
 * try (MetricsEndpoint endpoint = MetricsEndpoint.start(9400)) {   // 127.0.0.1:9400
 *     ... run collectives ...
 * }
 * }</pre>
 * then {@code curl -s localhost:9400/metrics | grep jccl_collective}.
 */
public final class MetricsEndpoint implements AutoCloseable {
    /** The content type of Prometheus' text exposition format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;
    private final JcclMetrics metrics;
    private final HttpServer server;

    private MetricsEndpoint(PrometheusMeterRegistry registry, JcclMetrics metrics, HttpServer server) {
        this.registry = registry;
        this.metrics = metrics;
        this.server = server;
    }

    /** Serves on 127.0.0.1:{@code port} (0: any free port, see {@link #port()}). */
    public static MetricsEndpoint start(int port) {
        return start(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    }

    /**
     * Serves one rank of a job whose ranks on a host share {@code --metrics-port P}: on 127.0.0.1:{@code P + rank},
     * so that the ranks of a host do not collide, or on any free port when P is 0. {@code jccl perf}, {@code bench
     * collective} and the examples serve so.
     *
     * @param basePort the port of the host's first rank, or 0 for any free port per rank
     * @param rank     the rank's index among those serving from {@code basePort} (its local rank)
     * @return the endpoint
     * @throws IllegalArgumentException when {@code basePort + rank} is not a port
     * @throws UncheckedIOException     when the port cannot be bound
     */
    public static MetricsEndpoint startForRank(int basePort, int rank) {
        if (basePort < 0 || rank < 0 || (basePort > 0 && basePort + (long) rank > 65535)) {
            throw new IllegalArgumentException("--metrics-port " + basePort + " + local rank " + rank
                    + " is not a port");
        }
        return start(basePort == 0 ? 0 : basePort + rank);
    }

    /**
     * Serves on {@code address}: binds a new {@link JcclMetrics} (all communicators of the JVM) to a new
     * Prometheus registry.
     *
     * @throws UncheckedIOException when the address cannot be bound
     */
    public static MetricsEndpoint start(InetSocketAddress address) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        JcclMetrics metrics = new JcclMetrics();
        metrics.bindTo(registry);
        HttpServer server;
        try {
            server = HttpServer.create(address, 16);
        } catch (IOException e) {
            metrics.close();
            throw new UncheckedIOException("cannot serve metrics on " + address + ": " + e.getMessage(), e);
        }
        MetricsEndpoint endpoint = new MetricsEndpoint(registry, metrics, server);
        server.createContext("/metrics", exchange -> {
            try (exchange) {
                if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                    exchange.sendResponseHeaders(405, -1);
                    return;
                }
                byte[] body = endpoint.scrape().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        });
        server.setExecutor(Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon()
                .name("jccl-metrics-http").unstarted(r)));
        server.start();
        return endpoint;
    }

    /** @return the Prometheus text now (refreshes the transports' meters first) */
    public String scrape() {
        metrics.refresh();
        return registry.scrape();
    }

    /** @return the port served */
    public int port() {
        return server.getAddress().getPort();
    }

    /** @return the registry, to add more meters */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        server.stop(0);
        metrics.close();
        registry.close();
    }
}
