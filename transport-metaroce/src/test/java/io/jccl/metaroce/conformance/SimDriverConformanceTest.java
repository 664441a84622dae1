package io.jccl.metaroce.conformance;

import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.sim.FabricConfig;
import io.jccl.metaroce.sim.Simulator;

import java.util.SplittableRandom;

/** The conformance suite on the deterministic simulator (virtual time). */
class SimDriverConformanceTest extends DriverConformanceTest {
    @Override
    protected Pair connectedPair(long seed) {
        Simulator sim = new Simulator(FabricConfig.datacenter(), seed);
        EndpointConfig config = EndpointConfig.defaults(new byte[32]);
        Endpoint a = new Endpoint(config, new SplittableRandom(seed));
        Endpoint b = new Endpoint(config, new SplittableRandom(seed + 1));
        sim.addNode(1, a);
        sim.addNode(2, b);
        int atA = a.connect(sim.nowNs(), 2);
        sim.wake(1);
        sim.run(() -> a.isEstablished(atA) && b.connectionTo(1) >= 0, Long.MAX_VALUE, 1_000_000_000L);
        int atB = b.connectionTo(1);
        return new Pair(a, b, atA, atB, sim::nowNs, done -> {
            sim.wake(1);
            sim.wake(2);
            sim.run(done, 50_000_000, sim.nowNs() + 10_000_000_000L);
            return done.getAsBoolean();
        }, () -> { });
    }
}
