package io.jccl.net;

/**
 * Where a rank lives, as far as choosing a transport needs to know.
 *
 * @param rank   the rank in its communicator
 * @param hostId identifies the machine (same value for ranks on the same host)
 * @param jvmId  identifies the JVM (same value for ranks in the same process)
 */
public record PeerIdentity(int rank, String hostId, String jvmId) {
}
