package io.jccl.core;

import io.jccl.net.PeerIdentity;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * Where this process runs: host and JVM identifiers used to choose transports.
 *
 * <p>The host id is the host name plus the kernel's boot id. {@value #HOST_ID_OVERRIDE}, when set (environment
 * variable or {@code jccl.hostId} system property), replaces it: a test-only override that lets processes of one
 * machine pose as different hosts, so that a mixed job (shm within a "host", tcp or metaroce between them) runs on
 * one machine. Ranks that really share a host but claim different ids merely use a network transport between them.
 */
final class Identity {
    private static final int MAGIC = 0x4A434944;   // "JCID"
    /** Test-only override of the host id. */
    static final String HOST_ID_OVERRIDE = "JCCL_HOST_ID";
    private static final String JVM_ID = UUID.randomUUID().toString();
    private static final String HOST_ID = computeHostId();

    private Identity() {
    }

    static String jvmId() {
        return JVM_ID;
    }

    static String hostId() {
        return HOST_ID;
    }

    private static String computeHostId() {
        String forced = System.getProperty("jccl.hostId", System.getenv(HOST_ID_OVERRIDE));
        if (forced != null && !forced.isBlank()) {
            return forced.strip();
        }
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "unknown-host";
        }
        try {
            Path bootId = Path.of("/proc/sys/kernel/random/boot_id");
            if (Files.isReadable(bootId)) {
                return host + "/" + Files.readString(bootId).trim();
            }
        } catch (IOException | SecurityException ignored) {
            // Host name alone then.
        }
        return host;
    }

    static byte[] encode(int rank) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(MAGIC);
            out.writeInt(rank);
            out.writeUTF(HOST_ID);
            out.writeUTF(JVM_ID);
            out.writeLong(ProcessHandle.current().pid());
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A peer's identity and how to name it in messages.
     *
     * @param identity for choosing transports
     * @param pid      its process id
     */
    record Decoded(PeerIdentity identity, long pid) {
        /** @return e.g. {@code rank 2 (pid 4711 on node3)} */
        String describe() {
            String host = identity.hostId();
            int slash = host.indexOf('/');
            return "rank " + identity.rank() + " (pid " + pid + " on " + (slash > 0 ? host.substring(0, slash) : host)
                    + ")";
        }
    }

    /** @throws IllegalArgumentException when the bytes are not an identity of {@code rank} */
    static Decoded decode(byte[] data, int rank) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            if (in.readInt() != MAGIC) {
                throw new IllegalArgumentException("bad magic");
            }
            int r = in.readInt();
            if (r != rank) {
                throw new IllegalArgumentException("says it is rank " + r);
            }
            String host = in.readUTF();
            String jvm = in.readUTF();
            long pid = in.readLong();
            if (in.available() != 0) {
                throw new IllegalArgumentException("trailing bytes");
            }
            return new Decoded(new PeerIdentity(rank, host, jvm), pid);
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated", e);
        }
    }
}
