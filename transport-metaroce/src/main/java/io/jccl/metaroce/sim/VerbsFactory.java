package io.jccl.metaroce.sim;

import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.Verbs;

import java.util.random.RandomGenerator;

/**
 * Makes the endpoint of one simulated node: how a scenario or benchmark chooses the protocol under test
 * ({@link Protocols#metaRoCE()}, {@link Protocols#goBackN}, or a test's own).
 */
@FunctionalInterface
public interface VerbsFactory {
    /**
     * @param config the endpoint settings
     * @param nodeId the node's id (how peers and the fabric name it)
     * @param random the node's own seeded random source (the only randomness it may use)
     * @return a new endpoint
     */
    Verbs create(EndpointConfig config, long nodeId, RandomGenerator random);
}
