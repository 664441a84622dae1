package io.jccl.net;

/**
 * What a transport can do, for the tuner and the executor (NCCL's {@code ncclNetProperties_t}).
 *
 * @param name                 the transport's name, e.g. {@code local} or {@code tcp}
 * @param speedMbps            sustained bandwidth of one connection in megabits per second
 * @param latencyUs            one-way latency of a small message in microseconds
 * @param maxInflightRequests  how many requests one connection accepts before {@code isend}/{@code irecv}
 *                             return null (try again later)
 * @param maxMessageBytes      the largest message one request can carry
 * @param signalsCompletion    true when requests complete on the transport's own threads and the
 *                             {@link ProgressSignal} is called; false when progress happens only inside
 *                             {@link NetRequest#test()}, so the caller must keep polling
 */
public record NetProperties(String name, long speedMbps, double latencyUs, int maxInflightRequests,
                            long maxMessageBytes, boolean signalsCompletion) {
    /** Validates the values. */
    public NetProperties {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank");
        }
        if (speedMbps <= 0 || latencyUs < 0 || maxInflightRequests <= 0 || maxMessageBytes <= 0) {
            throw new IllegalArgumentException("transport " + name + " has invalid properties: speedMbps="
                    + speedMbps + " latencyUs=" + latencyUs + " maxInflightRequests=" + maxInflightRequests
                    + " maxMessageBytes=" + maxMessageBytes);
        }
    }
}
