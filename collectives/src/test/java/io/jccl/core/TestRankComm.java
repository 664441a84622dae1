package io.jccl.core;

import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.UniqueId;

import java.time.Duration;

/**
 * The communicator of one rank JVM that a test started: rank and size from its first two arguments, the job's id
 * from {@code JCCL_TEST_UNIQUE_ID}, the transport from the environment ({@code JCCL_NET}); timeouts long enough for
 * a loaded machine.
 */
final class TestRankComm {
    private TestRankComm() {
    }

    static Communicator join(String[] args) {
        int rank = Integer.parseInt(args[0]);
        int size = Integer.parseInt(args[1]);
        UniqueId id = UniqueId.parse(System.getenv("JCCL_TEST_UNIQUE_ID"));
        return Communicator.init(id, rank, size, CommConfig.builder()
                .initTimeout(Duration.ofSeconds(60)).opTimeout(Duration.ofSeconds(120)).build());
    }
}
