package io.jccl.env;

import io.jccl.UniqueId;

import java.nio.file.Path;

/**
 * How the ranks of a launched job agree on their {@link UniqueId}; part of a {@link LaunchEnvironment}.
 */
public sealed interface Rendezvous {
    /** @return where it comes from, for messages (no secret) */
    String origin();

    /**
     * The id is given, e.g. by {@code jccl run} in {@code JCCL_COMM_ID}.
     *
     * @param id       the id
     * @param origin   the variable it came from
     */
    record Given(UniqueId id, String origin) implements Rendezvous {
    }

    /**
     * Rank 0 starts the rendezvous on a known port of its host; the others connect to it.
     *
     * @param host   the host name or IP literal of rank 0's host, as the other ranks resolve it
     * @param port   the port, 1 to 65535
     * @param secret the secret every rank uses
     * @param origin the variables host and port came from, e.g. {@code MASTER_ADDR=node1, MASTER_PORT+1=29501}
     */
    record RootListens(String host, int port, RendezvousSecret secret, String origin) implements Rendezvous {
        @Override
        public String toString() {
            return "RootListens[" + origin + ", secret " + secret.describe() + "]";
        }
    }

    /**
     * Rank 0 creates an id and writes it to a file that the others read (one host, or a shared filesystem).
     *
     * @param file   the file
     * @param origin where its name came from, e.g. {@code JCCL_COMM_ID_FILE} or {@code PMIX_NAMESPACE}
     */
    record IdFile(Path file, String origin) implements Rendezvous {
    }

    /**
     * A single rank: it makes its own id, nothing is exchanged.
     *
     * @param origin the size variable that said 1
     */
    record Alone(String origin) implements Rendezvous {
    }
}
