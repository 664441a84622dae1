package io.jccl.cli.metrics;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * GET /metrics answers 200 with the collective meters in Prometheus text format; a rank serves on the base port plus
 * its rank, or any free port from base 0.
 */
class MetricsEndpointTest {
    @Test
    void servesThePrometheusScrape() throws Exception {
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(0)) {
            List<Communicator> comms = Communicator.local(2);
            try {
                for (int i = 0; i < 3; i++) {
                    comms.stream().map(c -> c.allReduce(Buffer.of(new float[256]), Buffer.of(new float[256]), 256,
                            DataType.FLOAT32,
                            ReduceOp.SUM)).toList().forEach(CollectiveFuture::await);
                }
            } finally {
                comms.forEach(Communicator::close);
            }
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                    v -> assertThat(v).startsWith("text/plain"));
            assertThat(response.body()).contains("# TYPE jccl_collective_seconds summary")
                    .containsPattern("jccl_collective_seconds_count\\{algorithm=\"[a-z_]+\",collective=\"allReduce\","
                            + "transport=\"local\",type=\"float32\"} 6")
                    .contains("jccl_collective_bytes_total{");
        }
    }

    @Test
    void eachRankServesOnTheBasePortPlusItsRankOrAnyFreePortFromZero() throws Exception {
        int base;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            base = probe.getLocalPort();   // free a moment ago; base + 1 may not be, so rank 0 only
        }
        try (MetricsEndpoint first = MetricsEndpoint.startForRank(base, 0);
             MetricsEndpoint any = MetricsEndpoint.startForRank(0, 5)) {
            assertThat(first.port()).isEqualTo(base);
            assertThat(any.port()).isPositive().isNotEqualTo(5);
        }
        assertThatThrownBy(() -> MetricsEndpoint.startForRank(65535, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--metrics-port 65535 + local rank 1 is not a port");
        assertThatThrownBy(() -> MetricsEndpoint.startForRank(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
