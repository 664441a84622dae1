package io.jccl.testing;

import io.jccl.Algorithm;
import io.jccl.CommConfig;
import io.jccl.Communicator;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** In-JVM communicators shared by tests, one set per (ranks, algorithm, transport); rebuilt when broken. */
public final class LocalComms {
    private static final Map<String, List<Communicator>> CACHE = new ConcurrentHashMap<>();

    private LocalComms() {
    }

    public static synchronized List<Communicator> get(int n, Algorithm algorithm, String transport) {
        String key = n + "/" + algorithm + "/" + transport;
        List<Communicator> comms = CACHE.get(key);
        if (comms != null && comms.stream().anyMatch(c -> c.asyncError().isPresent())) {
            comms.forEach(Communicator::abort);
            comms = null;
        }
        if (comms == null) {
            CommConfig.Builder b = CommConfig.builder().algorithm(algorithm).opTimeout(Duration.ofSeconds(60));
            if (transport != null) {
                b.transport(transport);
            }
            comms = Communicator.local(n, b.build());
            CACHE.put(key, comms);
        }
        return comms;
    }

    public static List<Communicator> get(int n) {
        return get(n, Algorithm.AUTO, null);
    }
}
