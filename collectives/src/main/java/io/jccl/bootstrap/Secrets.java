package io.jccl.bootstrap;

/** Secrets derived from a communicator's, for the rendezvous of communicators built from it (shrink, split). */
public final class Secrets {
    private Secrets() {
    }

    /**
     * HMAC(secret, "jccl-derived-v1 " purpose): knowing the result reveals nothing about {@code secret}, and
     * different purposes give unrelated secrets.
     *
     * @param secret  the 32-byte secret to derive from
     * @param purpose what the derived secret is for
     * @return 32 bytes
     */
    public static byte[] derive(byte[] secret, String purpose) {
        return RendezvousProtocol.deriveSecret(secret, purpose);
    }
}
